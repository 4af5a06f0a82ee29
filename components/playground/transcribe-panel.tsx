"use client";
/** Transcribe: upload or record audio, pick a model; the text with its timestamps, and the cost. */
import { useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Button } from "../ui/button";
import { Card, CardBody, CardHeader } from "../ui/card";
import { SelectField } from "../ui/field";
import { Empty } from "../ui/states";
import { usdProse } from "../console/format";
import type { FriendlyError } from "@/lib/playground/friendly-error";
import { timestamp, wavFromSamples } from "@/lib/playground/audio-forms";
import type { PlaygroundModel } from "@/lib/views";
import { ErrorCallout } from "./error-callout";
import { proxyUrl, readResult } from "./gateway-fetch";

interface Transcript {
  text: string;
  duration: number;
  segments: { start: number; end: number; text: string }[];
  costMicroUsd: number | null;
}

export function TranscribePanel({ models }: { models: PlaygroundModel[] }) {
  const sttModels = models.filter((m) => m.kind === "transcription");
  const qc = useQueryClient();
  const [modelId, setModelId] = useState(sttModels[0]?.id ?? "");
  const model = sttModels.find((m) => m.id === modelId) ?? sttModels[0];
  const [task, setTask] = useState<"transcriptions" | "translations">("transcriptions");
  const [file, setFile] = useState<File | null>(null);
  const [recording, setRecording] = useState<MediaRecorder | null>(null);
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState<Transcript | null>(null);
  const [error, setError] = useState<FriendlyError | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => () => abort.current?.abort(), []);

  if (!model) return <Empty title="No transcription models">Your account has no transcription models. An admin can add one in the config file (docs/audio.md).</Empty>;

  async function record() {
    if (recording) return recording.stop();
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const rec = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      rec.ondataavailable = (e) => chunks.push(e.data);
      rec.onstop = async () => {
        stream.getTracks().forEach((t) => t.stop());
        setRecording(null);
        // Uploaded as WAV: the recorder's WebM/Ogg often has no duration in its header.
        const ctx = new AudioContext();
        try {
          const decoded = await ctx.decodeAudioData(await new Blob(chunks).arrayBuffer());
          setFile(new File([wavFromSamples(decoded.getChannelData(0), decoded.sampleRate) as BlobPart], "recording.wav", { type: "audio/wav" }));
        } catch {
          setError({ title: "Recording unreadable", detail: "The browser could not decode the recording. Upload a file instead.", code: "bad_recording", status: 0 });
        } finally {
          void ctx.close();
        }
      };
      rec.start();
      setRecording(rec);
    } catch {
      setError({ title: "No microphone", detail: "The browser did not give access to a microphone. Upload a file instead.", code: "no_microphone", status: 0 });
    }
  }

  async function transcribe() {
    if (!file) return;
    setError(null);
    setResult(null);
    setPending(true);
    const ctl = new AbortController();
    abort.current = ctl;
    const form = new FormData();
    form.set("file", file);
    form.set("model", model!.id);
    form.set("response_format", "verbose_json");
    try {
      const res = await fetch(proxyUrl(`/v1/audio/${task}`), { method: "POST", credentials: "same-origin", body: form, signal: ctl.signal, cache: "no-store" });
      const r = await readResult<{ text: string; duration: number; segments?: Transcript["segments"] }>(res);
      if (!r.ok) setError(r.error);
      else {
        const cost = r.headers.get("x-gateway-cost-usd");
        setResult({ text: r.value.text, duration: r.value.duration, segments: r.value.segments ?? [], costMicroUsd: cost === null ? null : Math.round(Number(cost) * 1_000_000) });
        void qc.invalidateQueries({ queryKey: ["me"] });
      }
    } catch {
      /* cancelled */
    } finally {
      setPending(false);
      abort.current = null;
    }
  }

  return (
    <div className="grid gap-4 lg:grid-cols-[340px_minmax(0,1fr)]">
      <Card>
        <CardHeader title="Transcribe" description="Up to 25 MB of audio, billed on its duration (or the model's tokens)." />
        <CardBody>
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              void transcribe();
            }}
            noValidate
          >
            <div className="space-y-2">
              <label className="block text-sm font-medium text-zinc-800" htmlFor="transcribe-file">
                Audio
              </label>
              <input id="transcribe-file" type="file" accept="audio/*,video/webm,video/mp4" onChange={(e) => setFile(e.target.files?.[0] ?? null)} className="block w-full text-sm" data-testid="transcribe-file" />
              <Button type="button" variant="ghost" size="sm" onClick={() => void record()} data-testid="transcribe-record">
                {recording ? "Stop recording" : "Record from the microphone"}
              </Button>
              {file && <p className="text-xs text-zinc-500">{file.name} · {(file.size / 1024).toFixed(0)} KB</p>}
            </div>
            <SelectField label="Model" value={model.id} onChange={(e) => setModelId(e.target.value)} data-testid="transcribe-model">
              {sttModels.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </SelectField>
            <SelectField label="Task" value={task} onChange={(e) => setTask(e.target.value as typeof task)}>
              <option value="transcriptions">Transcribe</option>
              <option value="translations">Translate into English</option>
            </SelectField>
            <Button type="submit" className="w-full" loading={pending} disabled={!file || recording !== null} data-testid="transcribe-go">
              {pending ? "Transcribing…" : "Transcribe"}
            </Button>
          </form>
        </CardBody>
      </Card>

      <Card className="min-h-[240px]">
        <CardBody className="space-y-4">
          {error && !pending && <ErrorCallout error={error} />}
          {result && !pending && (
            <div className="space-y-3" data-testid="transcribe-result">
              <p className="text-xs text-zinc-500">
                {result.duration.toFixed(1)} s of audio · cost <span className="font-medium text-zinc-800" data-testid="transcribe-cost">{usdProse(result.costMicroUsd)}</span>
              </p>
              <ol className="space-y-1 text-sm">
                {result.segments.map((s, i) => (
                  <li key={i} className="flex gap-3">
                    <span className="w-24 shrink-0 tabular-nums text-zinc-500">
                      {timestamp(s.start)}–{timestamp(s.end)}
                    </span>
                    <span>{s.text.trim()}</span>
                  </li>
                ))}
              </ol>
            </div>
          )}
          {!pending && !error && !result && <p className="text-sm text-zinc-500">The transcript will appear here, with timestamps.</p>}
        </CardBody>
      </Card>
    </div>
  );
}
