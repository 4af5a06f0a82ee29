import { describe, expect, it } from "vitest";
import { deleteConversation, historyFor, loadConversations, MAX_CONVERSATIONS, saveConversation, storageKey, titleOf, type Conversation, type Reply } from "./conversations";

class MemoryStore {
  data = new Map<string, string>();
  quota = Infinity;
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    if (v.length > this.quota) throw new Error("QuotaExceededError");
    this.data.set(k, v);
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
}

const reply = (text: string, state: Reply["state"] = "done"): Reply => ({ model: "m", text, state, protocol: "chat-completions" });

function conv(id: string, updatedAt: number, turns = [{ id: "t1", prompt: "hi", replies: [reply("hello")] }]): Conversation {
  return { id, title: "t", updatedAt, models: ["m"], protocol: "chat-completions", system: "", temperature: "", maxTokens: "", turns };
}

describe("playground conversations", () => {
  it("sends each column its own replies and skips a turn that failed with nothing generated", () => {
    const turns = [
      { id: "1", prompt: "a", replies: [reply("A1"), reply("B1")] },
      { id: "2", prompt: "b", replies: [reply("", "error"), reply("B2")] },
      { id: "3", prompt: "c", replies: [reply("partial", "stopped"), reply("", "streaming")] },
    ];
    expect(historyFor(turns, 0)).toEqual([
      { role: "user", text: "a" },
      { role: "assistant", text: "A1" },
      { role: "user", text: "c" },
      { role: "assistant", text: "partial" },
    ]);
    expect(historyFor(turns, 1)).toEqual([
      { role: "user", text: "a" },
      { role: "assistant", text: "B1" },
      { role: "user", text: "b" },
      { role: "assistant", text: "B2" },
    ]);
  });

  it("keeps conversations per user, newest first, and stores a streaming reply as stopped", () => {
    const s = new MemoryStore();
    saveConversation(s, "u1", conv("a", 1));
    saveConversation(s, "u1", conv("b", 3, [{ id: "t", prompt: "x", replies: [reply("half", "streaming")] }]));
    saveConversation(s, "u2", conv("c", 2));
    const list = loadConversations(s, "u1");
    expect(list.map((c) => c.id)).toEqual(["b", "a"]);
    expect(list[0]!.turns[0]!.replies[0]!.state).toBe("stopped");
    expect(loadConversations(s, "u2").map((c) => c.id)).toEqual(["c"]);
    expect(deleteConversation(s, "u1", "b").map((c) => c.id)).toEqual(["a"]);
    // An empty conversation is not kept.
    expect(saveConversation(s, "u1", conv("a", 5, [])).map((c) => c.id)).toEqual([]);
  });

  it("drops the oldest beyond the cap or when the quota is full, and survives garbage", () => {
    const s = new MemoryStore();
    for (let i = 0; i < MAX_CONVERSATIONS + 5; i++) saveConversation(s, "u", conv(`c${i}`, i));
    const list = loadConversations(s, "u");
    expect(list).toHaveLength(MAX_CONVERSATIONS);
    expect(list.at(-1)!.id).toBe("c5");
    s.quota = JSON.stringify(list.slice(0, 10)).length;
    const kept = saveConversation(s, "u", conv("new", 1000));
    expect(kept[0]!.id).toBe("new");
    expect(kept.length).toBeLessThanOrEqual(10);
    s.setItem(storageKey("u"), "{not json");
    expect(loadConversations(s, "u")).toEqual([]);
  });

  it("titles a conversation by its first prompt", () => {
    expect(titleOf("  Tell me\nabout   lighthouses ")).toBe("Tell me about lighthouses");
    expect(titleOf("x".repeat(100))).toHaveLength(58);
    expect(titleOf("")).toBe("New chat");
  });
});
