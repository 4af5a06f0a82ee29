import { describe, expect, it } from "vitest";
import { emailsIdle, sendLater } from "./send-later";

describe("sendLater", () => {
  it("runs the job after the caller has moved on, keeps failures to itself, and emailsIdle waits for every job", async () => {
    const done: string[] = [];
    sendLater("test", async () => {
      await new Promise((r) => setTimeout(r, 30));
      done.push("slow");
    });
    sendLater("test", async () => {
      throw new Error("smtp refused");
    });
    done.push("caller");
    await emailsIdle();
    expect(done).toEqual(["caller", "slow"]);
  });
});
