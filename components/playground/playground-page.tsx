"use client";
/** The Playground: chat, image, video, speech and transcription against the account's models, billed to its balance, with no API key in the browser. */
import { useEffect, useState } from "react";
import { PageHeader } from "../ui/page-header";
import { QueryState } from "../ui/states";
import { cx } from "../ui/cx";
import { ChatPanel } from "./chat-panel";
import { ImagePanel } from "./image-panel";
import { usePlaygroundModels } from "./use-playground";
import { VideoPanel } from "./video-panel";
import { SpeechPanel } from "./speech-panel";
import { TranscribePanel } from "./transcribe-panel";
import { tabListKeys } from "../ui/tabs";

const TABS = [
  { id: "chat", label: "Chat" },
  { id: "image", label: "Image" },
  { id: "video", label: "Video" },
  { id: "speech", label: "Speech" },
  { id: "transcribe", label: "Transcribe" },
] as const;
type Tab = (typeof TABS)[number]["id"];

export function PlaygroundPage() {
  const models = usePlaygroundModels();
  const [tab, setTab] = useState<Tab>("chat");

  // The tab lives in the URL hash so a reload (or a shared link) opens the same tab.
  useEffect(() => {
    const read = () => {
      const h = window.location.hash.slice(1);
      if (TABS.some((t) => t.id === h)) setTab(h as Tab);
    };
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);

  function choose(t: Tab) {
    setTab(t);
    history.replaceState(null, "", `#${t}`);
  }

  return (
    <>
      <style>{`@keyframes pgslide { 0% { transform: translateX(-100%); } 100% { transform: translateX(300%); } }`}</style>
      <PageHeader title="Playground" description="Try your models from the browser. Requests are billed to your balance and appear in Usage as playground requests; no API key needed." />
      <div role="tablist" onKeyDown={tabListKeys} aria-label="Playground mode" className="mb-4 inline-flex max-w-full overflow-x-auto rounded-lg border border-zinc-200 bg-white p-1 shadow-sm">
        {TABS.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            tabIndex={tab === t.id ? 0 : -1}
            aria-controls={`panel-${t.id}`}
            onClick={() => choose(t.id)}
            className={cx(
              "shrink-0 rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors sm:px-4 focus-visible:outline-2 focus-visible:outline-zinc-900",
              tab === t.id ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900",
            )}
          >
            {t.label}
          </button>
        ))}
      </div>
      <QueryState query={models}>
        {(d) => (
          <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            {tab === "chat" && <ChatPanel models={d.items} baseUrl={d.publicBaseUrl} />}
            {tab === "image" && <ImagePanel models={d.items} />}
            {tab === "video" && <VideoPanel models={d.items} />}
            {tab === "speech" && <SpeechPanel models={d.items} />}
            {tab === "transcribe" && <TranscribePanel models={d.items} />}
          </div>
        )}
      </QueryState>
    </>
  );
}
