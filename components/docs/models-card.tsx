"use client";
import { priceText } from "../admin/price-text";
import { useModels } from "../console/hooks";
import { Card, CardHeader } from "../ui/card";
import { Empty, QueryState } from "../ui/states";
import { Mono, Table, Td, Th } from "../ui/table";

/** The models this account may call, with their prices: the ids to put in `model`. */
export function ModelsCard() {
  const q = useModels();
  return (
    <Card>
      <CardHeader title="Your models" description="Use these ids as model. GET /v1/models lists what a given key may use." />
      <QueryState query={q} empty={(d) => (d.items.length ? null : <Empty title="No models are available to this account" />)}>
        {(d) => (
          <Table label="Models">
            <thead>
              <tr>
                <Th>Model</Th>
                <Th>Kind</Th>
                <Th>Owner</Th>
                <Th>Price (USD)</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100 bg-white">
              {d.items.map((m) => (
                <tr key={m.id}>
                  <Td>
                    <Mono className="font-medium text-zinc-900">{m.id}</Mono>
                  </Td>
                  <Td>{m.kind}</Td>
                  <Td>{m.ownedBy}</Td>
                  <Td className="min-w-64 text-xs whitespace-normal!">{priceText(m.price)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </QueryState>
    </Card>
  );
}
