import { randomBase62 } from "../../ids";

/** Protocol-shaped ids for objects we render (we never leak the upstream's ids for responses). */
export const protocolId = {
  chat: () => `chatcmpl-${randomBase62(24)}`,
  response: () => `resp_${randomBase62(24)}`,
  message: () => `msg_${randomBase62(24)}`,
  functionCall: () => `fc_${randomBase62(24)}`,
  call: () => `call_${randomBase62(24)}`,
  toolUse: () => `toolu_${randomBase62(24)}`,
};

/** The charge as a USD number for the usage objects we render (cost_usd). */
export function costUsd(micro: number | undefined): number | undefined {
  return micro === undefined ? undefined : micro / 1_000_000;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
