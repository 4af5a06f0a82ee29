"use client";
import { Button } from "../ui/button";
import { CopyButton } from "../ui/copy-button";

/** The one time a full key is on screen. */
export function RevealKey({ secret, note, onDone, baseUrl }: { secret: string; note?: string; onDone: () => void; baseUrl?: string }) {
  return (
    <div className="space-y-4">
      <div className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
        Copy this key now and keep it somewhere safe. It is not stored and will not be shown again.
        {note && <span className="mt-1 block">{note}</span>}
      </div>
      <div className="flex items-center gap-2 rounded-md border border-zinc-200 bg-zinc-50 p-2">
        <code className="min-w-0 flex-1 select-all break-all px-1 font-mono text-sm text-zinc-900" data-testid="new-key-value">
          {secret}
        </code>
        <CopyButton value={secret} testId="copy-key" />
      </div>
      {baseUrl && (
        <div>
          <p className="mb-1.5 text-xs font-medium text-zinc-500">Try it</p>
          <pre className="overflow-x-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100" tabIndex={0} aria-label="The key">
            <code>{`curl ${baseUrl}/v1/models \\\n  -H "Authorization: Bearer ${secret}"`}</code>
          </pre>
        </div>
      )}
      <div className="flex justify-end">
        <Button onClick={onDone}>I have copied it</Button>
      </div>
    </div>
  );
}
