import { PlaygroundPage } from "@/components/playground/playground-page";

export const metadata = { title: "Playground · Generation Gateway" };

export default function Page() {
  return <PlaygroundPage />;
}
