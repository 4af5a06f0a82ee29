"use client";
/** Stored Responses API responses: the account-wide switch and the operator's retention. */
import { useResponsesStorage, useSetResponsesStorage } from "../console/hooks";
import { Card, CardBody, CardHeader } from "../ui/card";

export function ResponsesStorageCard() {
  const storage = useResponsesStorage();
  const set = useSetResponsesStorage();
  const s = storage.data;
  return (
    <Card>
      <CardHeader
        title="Stored responses"
        description={
          s
            ? `Responses API requests (POST /v1/responses) keep their prompt and output, encrypted, for ${s.responsesRetentionDays} days so that previous_response_id works. A request with store: false keeps nothing.`
            : "Responses API requests keep their prompt and output so that previous_response_id works."
        }
      />
      <CardBody className="space-y-2 text-sm">
        {storage.isError && <p className="text-red-600">Could not load this setting.</p>}
        {s && (
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              data-testid="store-responses"
              checked={set.isPending ? set.variables : s.storeResponses}
              disabled={set.isPending}
              onChange={(e) => set.mutate(e.target.checked)}
            />
            <span>Store responses for all keys of this account</span>
          </label>
        )}
        {s && !s.storeResponses && <p className="text-zinc-500">Nothing is stored; previous_response_id and item references to new responses answer 404.</p>}
        {set.isError && <p className="text-red-600">Could not save the setting. Try again.</p>}
      </CardBody>
    </Card>
  );
}
