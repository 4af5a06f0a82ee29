import Link from "next/link";
import { Card, CardBody } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Playground · Generation Gateway" };

/** Placeholder: the playground (chat, image, video with live progress) is its own issue. */
export default function Page() {
  return (
    <>
      <PageHeader title="Playground" description="Try every model from the browser, billed to your balance, with no API key needed." />
      <Card>
        <CardBody className="space-y-3 py-12 text-center" >
          <p className="text-base font-medium text-zinc-900" data-testid="playground-coming">The playground is coming soon</p>
          <p className="mx-auto max-w-md text-sm text-zinc-500">
            Chat with streaming replies, image generation and video tasks with live progress will live here. Until then, the{" "}
            <Link href="/docs" className="underline">
              Docs
            </Link>{" "}
            show how to call every model with curl or the official SDKs.
          </p>
        </CardBody>
      </Card>
    </>
  );
}
