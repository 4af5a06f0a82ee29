"use client";
/**
 * Image: generate from a prompt, or edit uploaded images (with an optional PNG mask) through
 * POST /v1/images/edits. Model, quality and size with the price the gateway will hold shown
 * before sending (an edit's uploads included on a token-priced model); the gateway's upload
 * limits checked as files are picked; progress while waiting; the image with download and cost.
 * Which upstreams serve edits the model list does not say: the gateway's 400 names it.
 */
import { useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField, TextAreaField, TextField } from "../ui/field";
import { Empty } from "../ui/states";
import { usd, usdProse } from "../console/format";
import type { FriendlyError } from "@/lib/playground/friendly-error";
import { checkEditImages, checkEditMask, EDIT_IMAGE_TYPES, IMAGE_BACKGROUNDS, IMAGE_FORMATS, imageChoices, imagePrice, tokenPriced } from "@/lib/playground/media-forms";
import type { PlaygroundModel } from "@/lib/views";
import { ErrorCallout } from "./error-callout";
import { gatewayFetch } from "./gateway-fetch";

type Mode = "generate" | "edit";
/** A picked file and its object URL (the thumbnail), revoked when it is removed. */
interface Upload {
  file: File;
  url: string;
}
const upload = (file: File): Upload => ({ file, url: URL.createObjectURL(file) });

interface ImageResult {
  src: string;
  format: string;
  size: string;
  quality: string | null;
  costMicroUsd: number | null;
  model: string;
  seconds: number;
  edited: boolean;
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
  const [background, setBackground] = useState("auto");
  const [format, setFormat] = useState("png");
  const [promptError, setPromptError] = useState<string>();
  const [pending, setPending] = useState<{ started: number } | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [result, setResult] = useState<ImageResult | null>(null);
  const [error, setError] = useState<FriendlyError | null>(null);
  const abort = useRef<AbortController | null>(null);
  const [mode, setMode] = useState<Mode>("generate");
  const [images, setImages] = useState<Upload[]>([]);
  const [mask, setMask] = useState<Upload | null>(null);
  const [imagesError, setImagesError] = useState<string>();
  const [maskError, setMaskError] = useState<string>();
  const uploads = useRef<Upload[]>([]);
  uploads.current = [...images, ...(mask ? [mask] : [])];
  useEffect(() => () => uploads.current.forEach((u) => URL.revokeObjectURL(u.url)), []);

  useEffect(() => {
    if (!pending) return;
    const t = setInterval(() => setElapsed(Math.floor((Date.now() - pending.started) / 1000)), 500);
    return () => clearInterval(t);
  }, [pending]);
  useEffect(() => () => abort.current?.abort(), []);

  if (!model) return <Empty title="No image models">Your account has no image models. An admin can add one under Admin → Models.</Empty>;
  const editing = mode === "edit";
  // The gateway's hold: the size and quality's price, and on a token-priced model the prompt's
  // bound plus, for an edit, the uploads' (every image and the mask, as the gateway counts them).
  const inputBytes = editing ? uploads.current.reduce((n, u) => n + u.file.size, 0) : 0;
  const price = imagePrice(model.price, quality, size, prompt, inputBytes);

  function addImages(picked: File[]) {
    const next = [...images.map((u) => u.file), ...picked];
    const wrong = checkEditImages(next, mask?.file.size);
    setImagesError(wrong ?? undefined);
    if (!wrong) setImages((was) => [...was, ...picked.map(upload)]);
  }
  function removeImage(i: number) {
    URL.revokeObjectURL(images[i]!.url);
    setImages(images.filter((_, j) => j !== i));
    setImagesError(undefined);
  }
  function pickMask(file: File | undefined) {
    if (mask) URL.revokeObjectURL(mask.url);
    setMask(null);
    const wrong = file ? checkEditMask(file, images.reduce((n, u) => n + u.file.size, 0)) : null;
    setMaskError(wrong ?? undefined);
    if (file && !wrong) setMask(upload(file));
  }

  async function generate() {
    if (!prompt.trim()) return setPromptError(editing ? "Say what to change." : "Describe the image you want.");
    setPromptError(undefined);
    if (editing && images.length === 0) return setImagesError("Pick the image to edit.");
    setError(null);
    setResult(null);
    const started = Date.now();
    setElapsed(0);
    setPending({ started });
    const ctl = new AbortController();
    abort.current = ctl;
    const body: Record<string, string | number> = { model: model!.id, prompt: prompt.trim(), n: 1, size };
    if (quality) body.quality = quality;
    // Sent only when chosen: the defaults are every vendor's, and a vendor that refuses one says so by name.
    if (background !== "auto") body.background = background;
    if (format !== "png") body.output_format = format;
    // An edit is multipart, as the official SDKs send it: the fields, each image, the mask.
    let sent: Record<string, unknown> | FormData = body;
    if (editing) {
      const form = new FormData();
      for (const [k, v] of Object.entries(body)) form.append(k, String(v));
      for (const u of images) form.append("image[]", u.file, u.file.name);
      if (mask) form.append("mask", mask.file, mask.file.name);
      sent = form;
    }
    try {
      const r = await gatewayFetch<{ data: { b64_json: string }[]; output_format: string; size: string; quality?: string }>(editing ? "/v1/images/edits" : "/v1/images/generations", { method: "POST", body: sent, signal: ctl.signal });
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
          edited: editing,
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
        <CardHeader title="Image" description={editing ? "Change uploaded images from a prompt; one result per request, billed at the price shown." : "One image per request, billed at the price shown."} />
        <CardBody>
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              void generate();
            }}
            noValidate
          >
            <fieldset>
              <legend className="sr-only">Mode</legend>
              <div className="grid grid-cols-2 gap-1 rounded-md bg-zinc-100 p-1 text-sm font-medium" data-testid="image-mode">
                {(["generate", "edit"] as const).map((m) => (
                  <label key={m} className={`cursor-pointer rounded px-3 py-1.5 text-center has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-zinc-900/30 ${mode === m ? "bg-white text-zinc-900 shadow-sm" : "text-zinc-600 hover:text-zinc-900"}`}>
                    <input type="radio" name="image-mode" value={m} checked={mode === m} onChange={() => setMode(m)} className="sr-only" data-testid={`image-mode-${m}`} />
                    {m === "generate" ? "Generate" : "Edit"}
                  </label>
                ))}
              </div>
            </fieldset>
            {editing && (
              <>
                <div>
                  <TextField
                    label={`Images (up to 16, ${images.length} picked)`}
                    type="file"
                    accept={EDIT_IMAGE_TYPES.join(",")}
                    multiple
                    onChange={(e) => {
                      addImages([...(e.target.files ?? [])]);
                      e.target.value = "";
                    }}
                    error={imagesError}
                    hint="PNG, JPEG or WebP, at most 50 MB each."
                    data-testid="edit-images"
                  />
                  {images.length > 0 && (
                    <ul className="mt-2 grid grid-cols-4 gap-2" data-testid="edit-thumbnails">
                      {images.map((u, i) => (
                        <li key={u.url} className="relative">
                          {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL */}
                          <img src={u.url} alt={`Image ${i + 1}: ${u.file.name}`} className="aspect-square w-full rounded border border-zinc-200 object-cover" />
                          <button
                            type="button"
                            onClick={() => removeImage(i)}
                            aria-label={`Remove ${u.file.name}`}
                            className="absolute right-0.5 top-0.5 flex h-6 w-6 items-center justify-center rounded-full bg-zinc-900/80 text-sm text-white hover:bg-zinc-900"
                          >
                            ×
                          </button>
                        </li>
                      ))}
                    </ul>
                  )}
                </div>
                <div>
                  <TextField
                    label="Mask"
                    optional
                    type="file"
                    accept="image/png"
                    onChange={(e) => {
                      pickMask(e.target.files?.[0]);
                      e.target.value = "";
                    }}
                    error={maskError}
                    hint="A PNG the first image's size; its transparent pixels are what to change."
                    data-testid="edit-mask"
                  />
                  {mask && (
                    <p className="mt-1.5 flex items-center gap-2 text-xs text-zinc-600" data-testid="edit-mask-picked">
                      {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL */}
                      <img src={mask.url} alt="" className="h-8 w-8 rounded border border-zinc-200 object-cover" />
                      <span className="truncate">{mask.file.name}</span>
                      <button type="button" onClick={() => pickMask(undefined)} className="font-medium text-zinc-800 underline underline-offset-2">
                        Remove mask
                      </button>
                    </p>
                  )}
                </div>
              </>
            )}
            <TextAreaField label="Prompt" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} error={promptError} placeholder={editing ? "Make the sky a sunset; keep the lighthouse" : "A lighthouse on a cliff at dawn"} data-testid="image-prompt" />
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
            <div className="grid grid-cols-2 gap-3">
              <SelectField label="Background" value={background} onChange={(e) => setBackground(e.target.value)} data-testid="image-background">
                {IMAGE_BACKGROUNDS.map((b) => (
                  <option key={b} value={b}>
                    {b}
                  </option>
                ))}
              </SelectField>
              <SelectField label="Format" value={format} onChange={(e) => setFormat(e.target.value)} data-testid="image-format">
                {IMAGE_FORMATS.map((b) => (
                  <option key={b} value={b}>
                    {b}
                  </option>
                ))}
              </SelectField>
            </div>
            <p className="rounded-md bg-zinc-50 px-3 py-2 text-sm text-zinc-700" data-testid="image-price">
              {price.ok ? (
                <>
                  Price: <span className="font-semibold tabular-nums">{usdProse(price.value)}</span>
                  {size === "auto" && <span className="text-zinc-500"> at most (auto picks the size)</span>}
                  {editing && inputBytes > 0 && tokenPriced(model.price) && <span className="text-zinc-500"> (includes the uploaded images' bound)</span>}
                </>
              ) : (
                <span className="text-red-700">{price.error}</span>
              )}
            </p>
            <Button type="submit" className="w-full" loading={pending !== null} disabled={!price.ok} data-testid="image-generate">
              {pending ? (editing ? "Editing…" : "Generating…") : editing ? "Edit image" : "Generate image"}
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
              <p className="text-sm text-zinc-600">
                {editing ? "Editing" : "Generating"}… {elapsed} s
              </p>
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
              <img src={result.src} alt={`${result.edited ? "Edited" : "Generated"}: ${prompt}`} className="mx-auto max-h-[560px] w-auto rounded-md border border-zinc-200" data-testid="image-result" />
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
