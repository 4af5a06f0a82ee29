/** Only same-site paths: an open redirect through callbackUrl would be a phishing aid. */
export function safeCallback(url: string | null | undefined): string {
  return url && url.startsWith("/") && !url.startsWith("//") && !url.startsWith("/\\") ? url : "/overview";
}
