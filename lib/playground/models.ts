/** The models the playground offers: the catalog as the signed-in account's principal sees it. */
import { listModels, type ModelSummary } from "../gateway/catalog";
import type { Principal } from "../gateway/types";

export interface PlaygroundModel {
  id: string;
  kind: ModelSummary["kind"];
  family: ModelSummary["family"];
  ownedBy: string;
  /** Integer micro-USD (token prices per million tokens). */
  price: ModelSummary["price"];
}

export async function playgroundModels(principal: Principal): Promise<PlaygroundModel[]> {
  const all = await listModels(principal);
  return all
    .filter((m) => m.kind === "text" || m.kind === "image" || m.kind === "video")
    .map((m) => ({ id: m.id, kind: m.kind, family: m.family, ownedBy: m.ownedBy, price: m.price }));
}
