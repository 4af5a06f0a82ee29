/** The models the playground offers: the catalog as the signed-in account's principal sees it. */
import { listModels } from "../gateway/catalog";
import type { Principal } from "../gateway/types";
import type { PlaygroundModel } from "../views";
export type { PlaygroundModel };

export async function playgroundModels(principal: Principal): Promise<PlaygroundModel[]> {
  const all = await listModels(principal);
  return all
    .filter((m) => m.kind !== "embedding")
    .map((m) => ({ id: m.id, kind: m.kind, family: m.family, ownedBy: m.ownedBy, price: m.price }));
}
