"use client";
/** Video: a form validated with the family rules, then task cards with live progress; the account's recent tasks survive a reload. */
import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { FormError, SelectField, TextAreaField, TextField } from "../ui/field";
import { Empty, QueryState } from "../ui/states";
import { usd, usdProse } from "../console/format";
import type { FriendlyError } from "@/lib/playground/friendly-error";
import { checkVideoForm, videoBody, videoFields, videoPrice, type VideoForm } from "@/lib/playground/media-forms";
import type { PlaygroundModel } from "@/lib/views";
import { ErrorCallout } from "./error-callout";
import { gatewayFetch } from "./gateway-fetch";
import { TaskCard } from "./task-card";
import { useVideoTasks, type VideoTask } from "./use-playground";

const EMPTY: Required<Omit<VideoForm, "model" | "family">> = { prompt: "", size: "", aspectRatio: "", seconds: "", imageUrls: "", videoUrl: "", webhook: "", resolution: "", audio: "", negativePrompt: "", lastFrameUrl: "" };

export function VideoPanel({ models }: { models: PlaygroundModel[] }) {
  const videoModels = models.filter((m) => m.kind === "video");
  const qc = useQueryClient();
  const tasks = useVideoTasks();
  const [modelId, setModelId] = useState(videoModels[0]?.id ?? "");
  const model = videoModels.find((m) => m.id === modelId) ?? videoModels[0];
  const [f, setF] = useState(EMPTY);
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [error, setError] = useState<FriendlyError | null>(null);
  const [sending, setSending] = useState(false);

  if (!model) return <Empty title="No video models">Your account has no video models. An admin can add one under Admin → Models.</Empty>;
  const show = videoFields(model.family, model.price);
  const form: VideoForm = { ...f, model: model.id, family: model.family };
  // The gateway's own hold for this form (resolution, sound, seconds): one pricing function.
  const price = videoPrice(model.price, form);
  const set = (k: keyof typeof EMPTY) => (e: { target: { value: string } }) => {
    setF((old) => ({ ...old, [k]: e.target.value }));
    if (fieldError?.field === k) setFieldError(null);
  };
  const errFor = (k: string) => (fieldError?.field === k ? fieldError.message : undefined);

  async function submit() {
    const bad = checkVideoForm(form, model!.price);
    setFieldError(bad);
    setError(null);
    if (bad) return;
    setSending(true);
    const r = await gatewayFetch<VideoTask>("/v1/videos", { method: "POST", body: videoBody(form, model!.price) });
    setSending(false);
    if (!r.ok) {
      setError(r.error);
      return;
    }
    qc.setQueryData<{ data: VideoTask[] }>(["playground", "videos"], (old) => ({ data: [r.value, ...(old?.data ?? []).filter((t) => t.id !== r.value.id)] }));
    void qc.invalidateQueries({ queryKey: ["me"] });
    setF((old) => ({ ...old, prompt: "" }));
  }

  return (
    <div className="grid gap-4 lg:grid-cols-[340px_minmax(0,1fr)]">
      <Card>
        <CardHeader title="Video" description="A task runs in the background; its progress updates here." />
        <CardBody>
          <form
            className="space-y-4"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <TextAreaField label="Prompt" rows={4} value={f.prompt} onChange={set("prompt")} error={errFor("prompt")} placeholder="A paper boat drifting down a rainy street" data-testid="video-prompt" />
            <SelectField
              label="Model"
              value={model.id}
              onChange={(e) => {
                setModelId(e.target.value);
                setFieldError(null);
              }}
              hint={model.family ? `Family: ${model.family}` : undefined}
              data-testid="video-model"
            >
              {videoModels.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </SelectField>
            <div className="grid grid-cols-2 gap-3">
              {show.sizes && (
                <SelectField label="Size" value={f.size || show.sizes[0]} onChange={set("size")} error={errFor("size")} data-testid="video-size">
                  {show.sizes.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </SelectField>
              )}
              {show.aspectRatios && (
                <SelectField label="Aspect ratio" value={f.aspectRatio || show.aspectRatios[0]} onChange={set("aspectRatio")} error={errFor("aspectRatio")}>
                  {show.aspectRatios.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </SelectField>
              )}
              {show.resolutions && (
                <SelectField label="Resolution" value={f.resolution} onChange={set("resolution")} error={errFor("resolution")} data-testid="video-resolution">
                  <option value="">default</option>
                  {show.resolutions.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </SelectField>
              )}
              {show.audio && (
                <SelectField label="Sound" value={f.audio} onChange={set("audio")} error={errFor("audio")} data-testid="video-audio">
                  <option value="">default</option>
                  <option value="on">on</option>
                  <option value="off">off</option>
                </SelectField>
              )}
              {show.seconds && (
                <SelectField label="Seconds" value={f.seconds || show.seconds[0]} onChange={set("seconds")} error={errFor("seconds")}>
                  {show.seconds.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </SelectField>
              )}
            </div>
            {show.images && (
              <TextAreaField
                label="Image URLs"
                optional={!(model.family === "i2v" || model.family === "r2v")}
                rows={2}
                value={f.imageUrls}
                onChange={set("imageUrls")}
                error={errFor("imageUrls")}
                hint={`One per line: ${show.images}.`}
              />
            )}
            {show.lastFrame && (
              <TextField label="Last frame URL" optional value={f.lastFrameUrl} onChange={set("lastFrameUrl")} error={errFor("lastFrameUrl")} placeholder="https://…/last.png" hint="The clip ends on this image." data-testid="video-last-frame" />
            )}
            <TextField label="Negative prompt" optional value={f.negativePrompt} onChange={set("negativePrompt")} error={errFor("negativePrompt")} placeholder="blur, text, watermark" data-testid="video-negative-prompt" />
            {show.videoUrl && <TextField label="Source video URL" value={f.videoUrl} onChange={set("videoUrl")} error={errFor("videoUrl")} placeholder="https://…/clip.mp4" />}
            <TextField label="Webhook URL" optional value={f.webhook} onChange={set("webhook")} error={errFor("webhook")} placeholder="https://example.com/hooks/video" hint="We POST the finished task here, signed (see Docs)." data-testid="video-webhook" />
            <p className="rounded-md bg-zinc-50 px-3 py-2 text-sm text-zinc-700" data-testid="video-price">
              {price === null ? (
                <span className="text-zinc-500">Price shown once the form is complete</span>
              ) : (
                <>
                  Price: <span className="font-semibold tabular-nums">{usdProse(price)}</span>
                  <span className="text-zinc-500"> held now, refunded if the task fails</span>
                </>
              )}
            </p>
            {fieldError && !["prompt", "size", "aspectRatio", "seconds", "imageUrls", "videoUrl", "webhook", "resolution", "audio", "negativePrompt", "lastFrameUrl"].includes(fieldError.field) && <FormError message={fieldError.message} />}
            {error && <ErrorCallout error={error} />}
            <Button type="submit" className="w-full" loading={sending} data-testid="video-submit">
              Create video
            </Button>
          </form>
        </CardBody>
      </Card>

      <div className="min-w-0 space-y-3">
        <h2 className="text-sm font-semibold text-zinc-900">Recent tasks</h2>
        <QueryState query={tasks} empty={(d) => (d.data.length ? null : <Card><Empty title="No video tasks yet">Tasks you create here or with an API key appear in this list.</Empty></Card>)}>
          {(d) => (
            <ul className="space-y-3" data-testid="video-tasks">
              {d.data.map((t) => (
                <li key={t.id}>
                  <TaskCard task={t} models={models} />
                </li>
              ))}
            </ul>
          )}
        </QueryState>
      </div>
    </div>
  );
}
