"use client";
/** The chat's settings: the compared models (1–3 columns), protocol, system prompt, temperature, max tokens. */
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { CHAT_PROTOCOLS, type ChatProtocol } from "@/lib/playground/chat-protocols";
import type { Conversation } from "@/lib/playground/conversations";
import type { PlaygroundModel } from "@/lib/views";

export interface ParsedSettings {
  temperature?: number;
  maxTokens?: number;
  errors: { temperature?: string; maxTokens?: string };
}

export function parseSettings(temperature: string, maxTokens: string): ParsedSettings {
  const errors: ParsedSettings["errors"] = {};
  let t: number | undefined;
  let m: number | undefined;
  if (temperature.trim() !== "") {
    t = Number(temperature);
    if (!Number.isFinite(t) || t < 0 || t > 2) errors.temperature = "Temperature is a number from 0 to 2.";
  }
  if (maxTokens.trim() !== "") {
    m = Number(maxTokens);
    if (!Number.isInteger(m) || m < 1 || m > 200_000) errors.maxTokens = "Max tokens is a whole number from 1 to 200000.";
  }
  return { temperature: t, maxTokens: m, errors };
}

type Patch = Partial<Pick<Conversation, "models" | "protocol" | "system" | "temperature" | "maxTokens">>;

export function ChatSettingsCard({
  conv,
  textModels,
  busy,
  parsed,
  onChange,
  showCode,
  onToggleCode,
  maxColumns,
}: {
  conv: Conversation;
  textModels: PlaygroundModel[];
  busy: boolean;
  parsed: ParsedSettings;
  onChange: (p: Patch) => void;
  showCode: boolean;
  onToggleCode: () => void;
  maxColumns: number;
}) {
  const setModel = (i: number, id: string) => onChange({ models: conv.models.map((m, j) => (j === i ? id : m)) });
  return (
    <Card>
      <CardHeader title="Settings" />
      <CardBody className="space-y-4">
        {conv.models.map((m, i) => (
          <div key={i} className="flex items-end gap-2">
            <SelectField
              className="min-w-0 flex-1"
              label={i === 0 ? "Model" : `Compare with (column ${i + 1})`}
              value={m}
              disabled={busy}
              onChange={(e) => setModel(i, e.target.value)}
              data-testid={i === 0 ? "chat-model" : `chat-model-${i + 1}`}
            >
              {textModels.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.id}
                </option>
              ))}
            </SelectField>
            {i > 0 && (
              <Button variant="ghost" size="sm" disabled={busy} onClick={() => onChange({ models: conv.models.filter((_, j) => j !== i) })} aria-label={`Remove column ${i + 1}`}>
                Remove
              </Button>
            )}
          </div>
        ))}
        {conv.models.length < maxColumns && (
          <Button variant="secondary" size="sm" disabled={busy} onClick={() => onChange({ models: [...conv.models, textModels.find((t) => !conv.models.includes(t.id))?.id ?? conv.models[0]!] })} data-testid="chat-compare-add">
            Compare with another model
          </Button>
        )}
        <SelectField
          label="Protocol"
          value={conv.protocol}
          disabled={busy}
          onChange={(e) => onChange({ protocol: e.target.value as ChatProtocol })}
          hint={CHAT_PROTOCOLS.find((p) => p.id === conv.protocol)?.route}
          data-testid="chat-protocol"
        >
          {CHAT_PROTOCOLS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </SelectField>
        <TextAreaField label="System prompt" optional rows={3} value={conv.system} onChange={(e) => onChange({ system: e.target.value })} placeholder="You are a helpful assistant." />
        <div className="grid grid-cols-2 gap-3">
          <TextField label="Temperature" inputMode="decimal" placeholder="default" value={conv.temperature} onChange={(e) => onChange({ temperature: e.target.value })} error={parsed.errors.temperature} />
          <TextField label="Max tokens" inputMode="numeric" placeholder="default" value={conv.maxTokens} onChange={(e) => onChange({ maxTokens: e.target.value })} error={parsed.errors.maxTokens} />
        </div>
        <div className="flex flex-wrap gap-2 border-t border-zinc-100 pt-4">
          <Button variant="secondary" size="sm" onClick={onToggleCode} aria-expanded={showCode} data-testid="view-code">
            {showCode ? "Hide code" : "View code"}
          </Button>
        </div>
      </CardBody>
    </Card>
  );
}
