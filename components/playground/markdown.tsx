"use client";
/**
 * A model's reply as Markdown (GitHub flavour): code blocks highlighted by sugar-high (its HTML
 * escapes the code; colours are CSS variables in globals.css) with a copy button. Raw HTML in
 * the reply is shown as text, links open in a new tab, and images become links: the page
 * never fetches from an address a model wrote.
 */
import { memo, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { highlight } from "sugar-high";
import { CopyButton } from "../ui/copy-button";

function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (node && typeof node === "object" && "props" in node) return textOf((node.props as { children?: ReactNode }).children);
  return "";
}

function CodeBlock({ code, language }: { code: string; language: string | null }) {
  return (
    <div className="md-code my-3 overflow-hidden rounded-md border border-zinc-200 bg-zinc-50" data-testid="md-code">
      <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-1">
        <span className="font-mono text-xs text-zinc-600">{language ?? "text"}</span>
        <CopyButton value={code} label="Copy code" testId="md-copy" />
      </div>
      {/* The scroll box takes focus so a keyboard can scroll a long line. */}
      <pre className="overflow-x-auto p-3 text-xs leading-relaxed" tabIndex={0} aria-label={`${language ?? "Code"} block`}>
        <code dangerouslySetInnerHTML={{ __html: highlight(code) }} />
      </pre>
    </div>
  );
}

const components: Components = {
  pre({ children }) {
    const code = Array.isArray(children) ? children[0] : children;
    const className = (code as { props?: { className?: string } } | undefined)?.props?.className ?? "";
    const language = /language-([\w+#-]+)/.exec(className)?.[1] ?? null;
    return <CodeBlock code={textOf(children).replace(/\n$/, "")} language={language} />;
  },
  code({ children }) {
    return <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em]">{children}</code>;
  },
  a({ href, children }) {
    return (
      <a href={href} target="_blank" rel="noopener noreferrer nofollow" className="font-medium underline">
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const url = typeof src === "string" ? src : "";
    return url ? (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow" className="underline">
        {alt || "image"}
      </a>
    ) : (
      <>{alt}</>
    );
  },
  table({ children }) {
    return (
      <div className="my-3 overflow-x-auto" tabIndex={0} role="region" aria-label="Table">
        <table className="min-w-full border-collapse text-left text-sm [&_td]:border [&_td]:border-zinc-200 [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:border-zinc-200 [&_th]:px-2 [&_th]:py-1">{children}</table>
      </div>
    );
  },
};

/** Memoised: while one reply streams, the finished ones are not parsed again. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="space-y-2 break-words text-sm leading-relaxed [&_blockquote]:border-l-2 [&_blockquote]:border-zinc-300 [&_blockquote]:pl-3 [&_h1]:text-base [&_h1]:font-semibold [&_h2]:font-semibold [&_h3]:font-semibold [&_ol]:list-decimal [&_ol]:pl-5 [&_ul]:list-disc [&_ul]:pl-5">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components} skipHtml>
        {text}
      </ReactMarkdown>
    </div>
  );
});
