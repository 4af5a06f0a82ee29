"use client";
/** Speech: text, model, voice and format; the audio plays as soon as it is back, with download and cost. */
import { useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { Empty } from "../ui/states";
import { usdProse } from "../console/format";
import { errorOf, friendlyError, type FriendlyError } from "@/lib/playground/friendly-error";
import { AUDIO_MIME, PLAYABLE_FORMATS, readSpeechEvents, SPEECH_VOICES, speechPriceMicro } from "@/lib/playground/audio-forms";
import type { PlaygroundModel } from "@/lib/views";
import { ErrorCallout } from "./error-callout";
import { proxyUrl } from "./gateway-fetch";

interface SpeechResult {
  url: string;
  format: string;
  costMicroUsd: number | null;
  model: string;
  seconds: number;
}

export function SpeechPanel({ models }: { models: PlaygroundModel[] }) {
  const speechModels = models.filter((m) => m.kind === "speech");
  const qc = useQueryClient();
  const [modelId, setModelId] = useState(speechModels[0]?.id ?? "");
  const model = speechModels.find((m) => m.id === modelId) ?? speechModels[0];
  const [input, setInput] = useState("");
  const [inputError, setInputError] = useState<string>();
  const [voice, setVoice] = useState<string>("alloy");
  const [format, setFormat] = useState<string>("wav");
  const [instructions, setInstructions] = useState("");
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<SpeechResult | null>(null);
  const [error, setError] = useState<FriendlyError | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => () => void (result && URL.revokeObjectURL(result.url)), [result]);

  if (!model) return <Empty title="No speech models">Your account has no speech models. An admin can add one in the config file (docs/audio.md).</Empty>;
  const price = speechPriceMicro(model.price, input);

  async function speak() {
    if (!input.trim()) return setInputError("Write what should be said.");
    setInputError(undefined);
    setError(null);
    setResult(null);
    setPending(true);
    const started = Date.now();
    const ctl = new AbortController();
    abort.current = ctl;
    // SSE: the audio arrives as events and the last one tells the charge.
    const body: Record<string, unknown> = { model: model!.id, input: input.trim(), voice, response_format: format, stream_format: "sse" };
    if (instructions.trim()) body.instructions = instructions.trim();
    try {
      const res = await fetch(proxyUrl("/v1/audio/speech"), { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: ctl.signal, cache: "no-store" });
      const text = await res.text();
      if (!res.ok) {
        let data: unknown = null;
        try {
          data = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        const e = errorOf(res.status, data);
        setError(friendlyError(res.status, e.code, e.message));
      } else {
        const r = readSpeechEvents(text);
        if (r.error) setError(friendlyError(502, "upstream_error", r.error));
        else
          setResult({
            url: URL.createObjectURL(new Blob([r.audio as BlobPart], { type: AUDIO_MIME[format] })),
            format,
            costMicroUsd: r.costUsd === null ? null : Math.round(Number(r.costUsd) * 1_000_000),
            model: model!.id,
            seconds: Math.round((Date.now() - started) / 100) / 10,
          });
        void qc.invalidateQueries({ queryKey: ["me"] });
      }
    } catch {
      if (!ctl.signal.aborted) setError(friendlyError(0, "network_error", ""));
    } finally {
      setPending(false);
      abort.current = null;
    }
  }

  return (
    <div className="grid gap-4 lg:grid-cols-[340px_minmax(0,1fr)]">
      <Card>
        <CardHeader title="Speech" description="Text to speech, billed on what the model makes." />
        <CardBody>
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              void speak();
            }}
            noValidate
          >
            <TextAreaField label="Text" rows={4} value={input} onChange={(e) => setInput(e.target.value)} error={inputError} maxLength={4096} placeholder="Hello! This is the gateway speaking." data-testid="speech-input" />
            <SelectField label="Model" value={model.id} onChange={(e) => setModelId(e.target.value)} data-testid="speech-model">
              {speechModels.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </SelectField>
            <div className="grid grid-cols-2 gap-3">
              <SelectField label="Voice" value={voice} onChange={(e) => setVoice(e.target.value)} data-testid="speech-voice">
                {SPEECH_VOICES.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </SelectField>
              <SelectField label="Format" value={format} onChange={(e) => setFormat(e.target.value)} data-testid="speech-format">
                {PLAYABLE_FORMATS.map((f) => (
                  <option key={f} value={f}>
                    {f}
                  </option>
                ))}
              </SelectField>
            </div>
            <TextField label="Instructions" value={instructions} onChange={(e) => setInstructions(e.target.value)} optional placeholder="Speak calmly" />
            <p className="rounded-md bg-zinc-50 px-3 py-2 text-sm text-zinc-700" data-testid="speech-price">
              {price !== null ? (
                <>
                  Price: <span className="font-semibold tabular-nums">{usdProse(price)}</span>
                </>
              ) : (
                <span className="text-zinc-500">Priced on the audio made; the cost shows when it is done.</span>
              )}
            </p>
            <Button type="submit" className="w-full" loading={pending} data-testid="speech-generate">
              {pending ? "Speaking…" : "Speak"}
            </Button>
          </form>
        </CardBody>
      </Card>

      <Card className="min-h-[240px]">
        <CardBody className="flex h-full flex-col items-center justify-center gap-4">
          {pending && (
            <div className="space-y-2 text-center" role="status">
              <p className="text-sm text-zinc-600">Making the audio…</p>
              <Button variant="ghost" size="sm" onClick={() => abort.current?.abort()}>
                Cancel
              </Button>
            </div>
          )}
          {error && !pending && (
            <div className="w-full max-w-md">
              <ErrorCallout error={error} />
            </div>
          )}
          {result && !pending && (
            <figure className="w-full max-w-md space-y-3">
              <audio controls autoPlay src={result.url} className="w-full" data-testid="speech-audio" />
              <figcaption className="flex flex-wrap items-center justify-center gap-x-3 gap-y-2 text-xs text-zinc-500" data-testid="speech-meta">
                <span>
                  {result.model} · {result.format}
                </span>
                <span>
                  Cost <span className="font-medium text-zinc-800" data-testid="speech-cost">{usdProse(result.costMicroUsd)}</span>
                </span>
                <span>{result.seconds} s</span>
                <a href={result.url} download={`speech-${Date.now()}.${result.format}`} className="rounded-md border border-zinc-300 bg-white px-2.5 py-1 font-medium text-zinc-800 hover:bg-zinc-50" data-testid="speech-download">
                  Download
                </a>
              </figcaption>
            </figure>
          )}
          {!pending && !error && !result && <p className="text-sm text-zinc-500">Your audio will play here.</p>}
        </CardBody>
      </Card>
    </div>
  );
}
