import Link from "next/link";
import { Card, CardBody } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";

export const metadata = { title: "Payment cancelled · Generation Gateway" };

export default function Page() {
  return (
    <>
      <PageHeader title="Top-up" />
      <Card className="mx-auto max-w-lg">
        <CardBody className="space-y-3 py-8 text-center">
          <p className="text-base font-medium text-zinc-900">Payment cancelled</p>
          <p className="text-sm text-zinc-500">Nothing was charged and your balance is unchanged.</p>
          <Link href="/billing" className="inline-block text-sm font-medium text-zinc-900 underline">
            Back to Billing
          </Link>
        </CardBody>
      </Card>
    </>
  );
}
