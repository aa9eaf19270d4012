// `stsfleet up --secure`: the local stack's NATS with the shipped per-service users and permissions
// (deploy/base/nats/auth.conf), random passwords, and mutual TLS from a throwaway CA made by
// deploy/scripts/nats-tls.sh with openssl (ADR 0064). Everything lives in <stateDir>/secure/ (mode 0700, keys and
// passwords 0600), is made anew on every `up` and removed when the stack stops.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inboxPrefixFor } from "../../../services/common/src/nats.ts";
import { SERVICE_KINDS } from "./state.ts";
import type { NatsClientAccess, ServiceKind } from "./state.ts";

const run = promisify(execFile);

/** The shipped users and permissions, shared with compose and Kubernetes: the stack reads it, never a copy. */
export const AUTH_CONF = fileURLToPath(new URL("../../../deploy/base/nats/auth.conf", import.meta.url));

/**
 * A fifth user for the local stack only: what `stsfleet status` and scripts use to read the fleet from the state
 * dir. Reads only: stream and consumer info, message gets and ephemeral consumers over the streams and buckets;
 * it may not publish to any fleet subject, and may not create, change or remove the pvc-provisioner's durable
 * consumer (the only durable one).
 */
export const OPERATOR_USER = "stsfleet";

export const OPENSSL_INSTALL_HINT =
  "--secure makes a throwaway CA and certificates with openssl, which is not on the PATH. Install it with " +
  "`sudo apt-get install -y openssl` (Debian/Ubuntu), or run without --secure.";

export class SecureSetupError extends Error {
  override readonly name = "SecureSetupError";
  readonly step: string;

  constructor(step: string, message: string, options?: ErrorOptions) {
    super(`--secure: ${step}: ${message}`, options);
    this.step = step;
  }
}

/**
 * A random password that nats-server takes through a `$VAR` reference. The server parses the variable's value as
 * config, so a value that starts with `-` fails to parse and the server exits (base64url begins with one in 1 of 64
 * draws: with six users, about one `stsfleet up --secure` in eleven failed to start NATS). A leading letter makes
 * it a plain string.
 */
export function natsPassword(): string {
  return `p${randomBytes(24).toString("base64url")}`;
}

/** `$STSFLEET_NATS_<USER>_PASSWORD`, as auth.conf and docker-compose.yml name each password. */
export function passwordVariable(user: string): string {
  return `STSFLEET_NATS_${user.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PASSWORD`;
}

export interface TlsFiles {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface NatsUserSecrets {
  readonly user: string;
  readonly password: string;
  /** The user's client certificate (CN = the user name), signed by the stack's CA. */
  readonly tls: TlsFiles;
}

export interface SecureNats {
  readonly dir: string;
  readonly caFile: string;
  /** The server's certificate: SAN IP:127.0.0.1 and DNS:localhost. */
  readonly server: { readonly certFile: string; readonly keyFile: string };
  readonly services: Readonly<Record<ServiceKind, NatsUserSecrets>>;
  readonly operator: NatsUserSecrets;
  /** The server's environment: every `$STSFLEET_NATS_*_PASSWORD` the authorization block refers to. */
  readonly serverEnv: Readonly<Record<string, string>>;
  /** auth.conf's authorization block with the operator user added, for the server's configuration. */
  readonly authorization: string;
  /** What stack.json records so other commands can connect (the password stays in a 0600 file). */
  readonly clientAccess: NatsClientAccess;
}

const OPERATOR_PERMISSIONS = `
    {
      # local stack only (tools/stsfleet/src/secure.ts): read-only access for \`stsfleet status\` and scripts
      user: "${OPERATOR_USER}"
      password: $${passwordVariable(OPERATOR_USER)}
      permissions: {
        publish: {
          allow: [
            "$JS.API.INFO", "$JS.API.STREAM.NAMES", "$JS.API.STREAM.LIST", "$JS.API.STREAM.INFO.>"
            "$JS.API.STREAM.MSG.GET.>", "$JS.API.DIRECT.GET.>"
            "$JS.API.CONSUMER.CREATE.>", "$JS.API.CONSUMER.MSG.NEXT.>", "$JS.API.CONSUMER.INFO.>"
            "$JS.API.CONSUMER.DELETE.>", "$JS.API.CONSUMER.NAMES.>", "$JS.API.CONSUMER.LIST.>", "$JS.FC.>"
          ]
          deny: [
            "$JS.API.CONSUMER.CREATE.STS_CMD.pvc", "$JS.API.CONSUMER.CREATE.STS_CMD.pvc.>"
            "$JS.API.CONSUMER.DURABLE.CREATE.>", "$JS.API.CONSUMER.DELETE.STS_CMD.pvc"
            "$JS.API.CONSUMER.MSG.NEXT.STS_CMD.pvc"
          ]
        }
        subscribe: {
          allow: ["${inboxPrefixFor(OPERATOR_USER)}.>"]
        }
      }
    }`;

/**
 * auth.conf's authorization block with the operator user as the first entry of `users`. The file is used as
 * shipped otherwise: a change there reaches `up --secure` without an edit here.
 */
export function authorizationWithOperator(authConf: string): string {
  const opening = /\busers\s*:\s*\[/g;
  const matches = [...authConf.matchAll(opening)];
  const first = matches[0];
  if (matches.length !== 1 || first === undefined) {
    throw new SecureSetupError("auth.conf", `expected one \`users: [\` list in ${AUTH_CONF}, found ${matches.length}`);
  }
  const at = first.index + first[0].length;
  return `${authConf.slice(0, at)}${OPERATOR_PERMISSIONS}${authConf.slice(at)}`;
}

/** The variables auth.conf refers to; each one must get a password, or nats-server refuses to start. */
export function passwordVariablesOf(authConf: string): string[] {
  return [...new Set([...authConf.matchAll(/\$(STSFLEET_NATS_[A-Z0-9_]+_PASSWORD)\b/g)].map((m) => m[1] ?? ""))].sort();
}

/** The certificate maker shared with compose and Kubernetes users (ADR 0065). */
export const TLS_SCRIPT = fileURLToPath(new URL("../../../deploy/scripts/nats-tls.sh", import.meta.url));

/** Creates `<stateDir>/secure/` afresh: CA, server and client certificates, passwords, the authorization block. */
export async function prepareSecureNats(stateDir: string, options: { openssl: string; authConfPath?: string }): Promise<SecureNats> {
  const binary = options.openssl;
  const authConf = readFileSync(options.authConfPath ?? AUTH_CONF, "utf8");
  const authorization = authorizationWithOperator(authConf);

  const dir = join(stateDir, "secure");
  rmSync(dir, { recursive: true, force: true });
  const users = [...SERVICE_KINDS, OPERATOR_USER];
  try {
    // Short-lived on purpose: every `up` makes new ones.
    await run("bash", [TLS_SCRIPT, dir, "127.0.0.1", "localhost"], {
      env: { ...process.env, OPENSSL: binary, CLIENTS: users.join(" "), DAYS: "30" },
      timeout: 60_000,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new SecureSetupError("certificates", `${TLS_SCRIPT} failed: ${stderr || (error as Error).message}`, { cause: error });
  }
  const caFile = join(dir, "ca.crt");
  const server = { certFile: join(dir, "nats-server.crt"), keyFile: join(dir, "nats-server.key") };

  const secrets = new Map<string, NatsUserSecrets>();
  for (const user of users) {
    const tls = { caFile, certFile: join(dir, `${user}.crt`), keyFile: join(dir, `${user}.key`) };
    secrets.set(user, { user, password: natsPassword(), tls });
  }
  const secretOf = (user: string): NatsUserSecrets => {
    const found = secrets.get(user);
    if (found === undefined) throw new SecureSetupError("passwords", `no password for ${user}`);
    return found;
  };

  const serverEnv: Record<string, string> = {};
  for (const variable of passwordVariablesOf(authorization)) {
    const user = users.find((u) => passwordVariable(u) === variable);
    if (user === undefined) throw new SecureSetupError("auth.conf", `${variable} belongs to no user the stack knows (${users.join(", ")})`);
    serverEnv[variable] = secretOf(user).password;
  }

  const operator = secretOf(OPERATOR_USER);
  const passwordFile = join(dir, `${OPERATOR_USER}.password`);
  writeFileSync(passwordFile, `${operator.password}\n`, { mode: 0o600 });

  return {
    dir,
    caFile,
    server,
    services: Object.fromEntries(SERVICE_KINDS.map((service) => [service, secretOf(service)])) as Record<ServiceKind, NatsUserSecrets>,
    operator,
    serverEnv,
    authorization,
    clientAccess: { user: OPERATOR_USER, passwordFile, inboxPrefix: inboxPrefixFor(OPERATOR_USER), tls: operator.tls },
  };
}

/** The environment that gives a service its NATS user, password and TLS files (config.ts reads these variables). */
export function serviceNatsEnv(secrets: NatsUserSecrets): Record<string, string> {
  return {
    NATS_USER: secrets.user,
    NATS_PASSWORD: secrets.password,
    NATS_TLS_CA: secrets.tls.caFile,
    NATS_TLS_CERT: secrets.tls.certFile,
    NATS_TLS_KEY: secrets.tls.keyFile,
  };
}
