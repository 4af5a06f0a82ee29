/**
 * A SAML identity provider for tests: a key and self-signed certificate made on the spot
 * (openssl), and signed Responses built as IdPs send them (the Assertion signed with RSA-SHA256,
 * exclusive c14n, the Signature after the Assertion's Issuer). Every field can be overridden to
 * build the hostile variants.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";

export interface SamlKeys {
  key: string;
  cert: string;
}

export function makeIdpKeys(): SamlKeys {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "saml-idp-"));
  const key = path.join(dir, "idp.key");
  const cert = path.join(dir, "idp.crt");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=test-idp"], { stdio: "ignore" });
  const out = { key: fs.readFileSync(key, "utf8"), cert: fs.readFileSync(cert, "utf8") };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

/** The AuthnRequest's ID from the HTTP-Redirect binding URL our SP sends the browser to. */
export function authnRequestId(redirectUrl: string): string {
  const req = new URL(redirectUrl).searchParams.get("SAMLRequest")!;
  const xml = inflateRawSync(Buffer.from(req, "base64")).toString("utf8");
  return /\bID="([^"]+)"/.exec(xml)![1]!;
}

export interface ResponseFields {
  issuer: string;
  audience: string;
  recipient: string;
  inResponseTo: string | null;
  nameId: string;
  email?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  assertionId?: string;
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

export function samlResponse(keys: SamlKeys | null, f: ResponseFields, tamper?: (signedXml: string) => string): string {
  const now = new Date();
  const notBefore = f.notBefore ?? new Date(now.getTime() - 60_000);
  const notOnOrAfter = f.notOnOrAfter ?? new Date(now.getTime() + 300_000);
  const irt = f.inResponseTo ? ` InResponseTo="${f.inResponseTo}"` : "";
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" Destination="${f.recipient}"${irt}>` +
    `<saml:Issuer>${f.issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${f.assertionId ?? `_${randomUUID()}`}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${f.issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${f.nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${iso(notOnOrAfter)}" Recipient="${f.recipient}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(notBefore)}" NotOnOrAfter="${iso(notOnOrAfter)}"><saml:AudienceRestriction><saml:Audience>${f.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (f.email ? `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${f.email}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` : "") +
    `</saml:Assertion></samlp:Response>`;
  let out = xml;
  if (keys) {
    const sig = new SignedXml({
      privateKey: keys.key,
      publicCert: keys.cert,
      signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
    });
    sig.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
      digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    });
    sig.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: "after" } });
    out = sig.getSignedXml();
  }
  return Buffer.from(tamper ? tamper(out) : out).toString("base64");
}
