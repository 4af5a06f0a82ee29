"use client";
/** Image: prompt, model, quality and size with the combination's price shown before sending; progress while waiting; the image with download and cost. */
import { useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField, TextAreaField } from "../ui/field";
import { Empty } from "../ui/states";
import { usd, usdProse } from "../console/format";
import type { FriendlyError } from "@/lib/playground/friendly-error";
import { imageChoices, imagePrice } from "@/lib/playground/media-forms";
import type { PlaygroundModel } from "@/lib/views";
import { ErrorCallout } from "./error-callout";
import { gatewayFetch } from "./gateway-fetch";

interface ImageResult {
  src: string;
  format: string;
  size: string;
  quality: string | null;
  costMicroUsd: number | null;
  model: string;
  seconds: number;
}

export function ImagePanel({ models }: { models: PlaygroundModel[] }) {
  const imageModels = models.filter((m) => m.kind === "image");
  const qc = useQueryClient();
  const [modelId, setModelId] = useState(imageModels[0]?.id ?? "");
  const model = imageModels.find((m) => m.id === modelId) ?? imageModels[0];
  const tiers = model ? imageChoices(model.price, null).qualities : [];
  const [qualityPick, setQuality] = useState("");
  const quality = tiers.length ? (tiers.includes(qualityPick) ? qualityPick : tiers.includes("medium") ? "medium" : tiers[0]!) : null;
  const sizes = model ? imageChoices(model.price, quality).sizes : [];
  const [sizePick, setSize] = useState("1024x1024");
  const size = sizePick === "auto" || sizes.includes(sizePick) ? sizePick : (sizes[0] ?? "auto");
  const [prompt, setPrompt] = useState("");
  const [promptError, setPromptError] = useState<string>();
  const [pending, setPending] = useState<{ started: number } | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [result, setResult] = useState<ImageResult | null>(null);
  const [error, setError] = useState<FriendlyError | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    if (!pending) return;
    const t = setInterval(() => setElapsed(Math.floor((Date.now() - pending.started) / 1000)), 500);
    return () => clearInterval(t);
  }, [pending]);
  useEffect(() => () => abort.current?.abort(), []);

  if (!model) return <Empty title="No image models">Your account has no image models. An admin can add one under Admin → Models.</Empty>;
  const price = imagePrice(model.price, quality, size);

  async function generate() {
    if (!prompt.trim()) return setPromptError("Describe the image you want.");
    setPromptError(undefined);
    setError(null);
    setResult(null);
    const started = Date.now();
    setElapsed(0);
    setPending({ started });
    const ctl = new AbortController();
    abort.current = ctl;
    const body: Record<string, unknown> = { model: model!.id, prompt: prompt.trim(), n: 1, size };
    if (quality) body.quality = quality;
    try {
      const r = await gatewayFetch<{ data: { b64_json: string }[]; output_format: string; size: string; quality?: string }>("/v1/images/generations", { method: "POST", body, signal: ctl.signal });
      if (!r.ok) setError(r.error);
      else {
        const cost = r.headers.get("x-gateway-cost-usd");
        const fmt = r.value.output_format || "png";
        setResult({
          src: `data:image/${fmt};base64,${r.value.data[0]!.b64_json}`,
          format: fmt,
          size: r.value.size,
          quality: r.value.quality ?? null,
          costMicroUsd: cost === null ? null : Math.round(Number(cost) * 1_000_000),
          model: model!.id,
          seconds: Math.round((Date.now() - started) / 100) / 10,
        });
        void qc.invalidateQueries({ queryKey: ["me"] });
      }
    } catch {
      /* cancelled */
    } finally {
      setPending(null);
      abort.current = null;
    }
  }

  return (
    <div className="grid gap-4 lg:grid-cols-[340px_minmax(0,1fr)]">
      <Card>
        <CardHeader title="Image" description="One image per request, billed at the price shown." />
        <CardBody>
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              void generate();
            }}
            noValidate
          >
            <TextAreaField label="Prompt" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} error={promptError} placeholder="A lighthouse on a cliff at dawn" data-testid="image-prompt" />
            <SelectField label="Model" value={model.id} onChange={(e) => setModelId(e.target.value)} data-testid="image-model">
              {imageModels.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </SelectField>
            <div className="grid grid-cols-2 gap-3">
              {tiers.length ? (
                <SelectField label="Quality" value={quality ?? ""} onChange={(e) => setQuality(e.target.value)} data-testid="image-quality">
                  {tiers.map((q) => (
                    <option key={q} value={q}>
                      {q}
                    </option>
                  ))}
                </SelectField>
              ) : (
                <div>
                  <p className="mb-1.5 text-sm font-medium text-zinc-800">Quality</p>
                  <p className="py-2 text-sm text-zinc-500">One price for every size</p>
                </div>
              )}
              <SelectField label="Size" value={size} onChange={(e) => setSize(e.target.value)} data-testid="image-size">
                <option value="auto">auto</option>
                {sizes.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </SelectField>
            </div>
            <p className="rounded-md bg-zinc-50 px-3 py-2 text-sm text-zinc-700" data-testid="image-price">
              {price.ok ? (
                <>
                  Price: <span className="font-semibold tabular-nums">{usdProse(price.microUsd)}</span>
                  {size === "auto" && <span className="text-zinc-500"> at most (auto picks the size)</span>}
                </>
              ) : (
                <span className="text-red-700">{price.message}</span>
              )}
            </p>
            <Button type="submit" className="w-full" loading={pending !== null} disabled={!price.ok} data-testid="image-generate">
              {pending ? "Generating…" : "Generate image"}
            </Button>
          </form>
        </CardBody>
      </Card>

      <Card className="min-h-[420px]">
        <CardBody className="flex h-full flex-col items-center justify-center gap-4">
          {pending && (
            <div className="w-full max-w-sm space-y-2 text-center" role="status" data-testid="image-progress">
              <div className="h-1.5 w-full overflow-hidden rounded-full bg-zinc-100">
                <div className="h-full w-1/3 animate-[pgslide_1.2s_ease-in-out_infinite] rounded-full bg-zinc-900" />
              </div>
              <p className="text-sm text-zinc-600">Generating… {elapsed} s</p>
              <p className="text-xs text-zinc-500">Images usually take 20–60 seconds with real providers.</p>
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
            <figure className="w-full space-y-3">
              {/* eslint-disable-next-line @next/next/no-img-element -- a data URL from the API */}
              <img src={result.src} alt={`Generated: ${prompt}`} className="mx-auto max-h-[560px] w-auto rounded-md border border-zinc-200" data-testid="image-result" />
              <figcaption className="flex flex-wrap items-center justify-center gap-x-3 gap-y-2 text-xs text-zinc-500" data-testid="image-meta">
                <span>
                  {result.model} · {result.size}
                  {result.quality ? ` · ${result.quality}` : ""}
                </span>
                <span>
                  Cost <span className="font-medium text-zinc-800" data-testid="image-cost">{usdProse(result.costMicroUsd)}</span>
                </span>
                <span>{result.seconds} s</span>
                <a href={result.src} download={`image-${Date.now()}.${result.format}`} className="rounded-md border border-zinc-300 bg-white px-2.5 py-1 font-medium text-zinc-800 hover:bg-zinc-50" data-testid="image-download">
                  Download
                </a>
              </figcaption>
            </figure>
          )}
          {!pending && !error && !result && <p className="text-sm text-zinc-500">Your image will appear here.</p>}
        </CardBody>
      </Card>
    </div>
  );
}
