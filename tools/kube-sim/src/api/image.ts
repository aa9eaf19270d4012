// The part of distribution/reference that SetDefaults_Container relies on (pkg/util/parsers
// ParseImageName): does the image carry a tag, a digest, or neither (which means "latest")?

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE_RE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const IDENTIFIER_RE = /^[a-f0-9]{64}$/;
const NAME_TOTAL_LENGTH_MAX = 255;

export interface ImageReference {
  tag: string;
  digest: string;
}

/** `ParseNormalizedNamed` reduced to what defaulting needs; undefined when the reference is invalid. */
export function parseImageReference(image: string): ImageReference | undefined {
  if (IDENTIFIER_RE.test(image)) return undefined;
  const slash = image.indexOf("/");
  let domain = "docker.io";
  let remainder = image;
  if (slash !== -1) {
    const first = image.slice(0, slash);
    if (/[.:]/.test(first) || first === "localhost" || first.toLowerCase() !== first) {
      domain = first;
      remainder = image.slice(slash + 1);
    }
  }
  if (domain === "docker.io" && !remainder.includes("/")) remainder = `library/${remainder}`;
  const colon = remainder.indexOf(":");
  const remoteName = colon > -1 ? remainder.slice(0, colon) : remainder;
  if (remoteName.toLowerCase() !== remoteName) return undefined;
  const match = REFERENCE_RE.exec(`${domain}/${remainder}`);
  if (match === null) return undefined;
  if ((match[1] ?? "").length > NAME_TOTAL_LENGTH_MAX) return undefined;
  return { tag: match[2] ?? "", digest: match[3] ?? "" };
}

/** SetDefaults_Container's imagePullPolicy: Always for `:latest` or no tag at all, else IfNotPresent. */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  const ref = parseImageReference(image);
  if (ref === undefined) return "IfNotPresent";
  const tag = ref.tag === "" && ref.digest === "" ? "latest" : ref.tag;
  return tag === "latest" ? "Always" : "IfNotPresent";
}
