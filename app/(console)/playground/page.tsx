import { PlaygroundPage } from "@/components/playground/playground-page";
import { Prefetch } from "@/components/console/prefetch";
import { GET as models } from "@/app/api/playground/models/route";

export const dynamic = "force-dynamic";
export const metadata = { title: "Playground · Generation Gateway" };

export default function Page() {
  return (
    <Prefetch queries={[{ key: ["playground", "models"], get: models, path: "/api/playground/models" }]}>
      <PlaygroundPage />
    </Prefetch>
  );
}
