import { describe, expect, it } from "vitest";
import { gatewayPathOf, playgroundAllows } from "./gateway-paths";

describe("playground proxy paths", () => {
  it("maps /api/playground/v1… to the public path", () => {
    expect(gatewayPathOf("/api/playground/v1/chat/completions")).toBe("/v1/chat/completions");
    expect(gatewayPathOf("/api/playground/v1beta/models/demo-chat:streamGenerateContent")).toBe("/v1beta/models/demo-chat:streamGenerateContent");
    expect(gatewayPathOf("/api/playground/models")).toBeNull();
  });

  it("allows the generation and task routes only", () => {
    expect(playgroundAllows("POST", "/v1/chat/completions")).toBe(true);
    expect(playgroundAllows("POST", "/v1/responses")).toBe(true);
    expect(playgroundAllows("POST", "/v1/messages")).toBe(true);
    expect(playgroundAllows("POST", "/v1beta/models/demo-chat:streamGenerateContent")).toBe(true);
    expect(playgroundAllows("POST", "/v1/images/generations")).toBe(true);
    expect(playgroundAllows("POST", "/v1/images/edits")).toBe(true);
    expect(playgroundAllows("POST", "/v1/images/variations")).toBe(false);
    expect(playgroundAllows("POST", "/v1/audio/speech")).toBe(true);
    expect(playgroundAllows("POST", "/v1/audio/transcriptions")).toBe(true);
    expect(playgroundAllows("POST", "/v1/audio/voices")).toBe(false);
    expect(playgroundAllows("GET", "/v1/videos/video_1/content")).toBe(true);
    expect(playgroundAllows("GET", "/v1/tasks/video_1")).toBe(true);
    expect(playgroundAllows("DELETE", "/v1/videos/video_1")).toBe(false);
    expect(playgroundAllows("POST", "/v1/embeddings")).toBe(false);
    expect(playgroundAllows("GET", "/v1/models")).toBe(false);
    expect(playgroundAllows("GET", "/v1/media/x/0.mp4")).toBe(false);
    expect(playgroundAllows("GET", "/v1/videos/a/b/content")).toBe(false);
  });
});
