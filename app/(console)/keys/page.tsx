import { KeysPage } from "@/components/keys/keys-page";

export const metadata = { title: "API Keys · Generation Gateway" };

export default function Page() {
  return <KeysPage />;
}
