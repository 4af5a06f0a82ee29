"use client";
import { usd } from "../console/format";
import { Ago, Time } from "../ui/money";
import { useTasks } from "../console/hooks";
import { InspectorLink } from "../inspector/request-inspector";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { Empty, QueryState } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";

const TONE = { queued: "neutral", in_progress: "blue", completed: "green", failed: "red" } as const;

export function TasksCard() {
  const q = useTasks();
  return (
    <Card>
      <CardHeader title="Video tasks" description="Asynchronous tasks, newest first. A failed task is refunded automatically." />
      <QueryState query={q} empty={(d) => (d.items.length ? null : <Empty title="No tasks yet">Video generations you submit appear here.</Empty>)}>
        {(d) => (
          <Table label="Tasks">
            <thead>
              <tr>
                <Th>Created</Th>
                <Th>Task</Th>
                <Th>Model</Th>
                <Th>Status</Th>
                <Th className="text-right">Cost</Th>
                <Th>Expires</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {d.items.map((t) => (
                <tr key={t.id} data-testid="task-row">
                  <Td>
                    <Ago iso={t.createdAt} />
                  </Td>
                  <Td>
                    <InspectorLink target={{ task: t.id }}>
                      <Mono>{t.id}</Mono>
                    </InspectorLink>
                  </Td>
                  <Td>
                    <Mono>{t.model}</Mono>
                  </Td>
                  <Td>
                    <Badge tone={TONE[t.status]}>{t.status === "in_progress" ? `In progress · ${t.progress}%` : t.status.replace("_", " ")}</Badge>
                    {t.errorMessage && <span className="mt-1 block max-w-64 truncate text-xs text-zinc-500" title={t.errorMessage}>{t.errorMessage} (refunded)</span>}
                  </Td>
                  <Td className="text-right tabular-nums">{usd(t.costMicroUsd, true)}</Td>
                  <Td><Time iso={t.expiresAt} /></Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
    </Card>
  );
}
