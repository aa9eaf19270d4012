#!/usr/bin/env bash
# Makes a private CA, a NATS server certificate and one client certificate per stsfleet service, for mutual TLS
# between the services and NATS (ADR 0065). `stsfleet up --secure` runs this script too.
#   deploy/scripts/nats-tls.sh OUT_DIR [SERVER_NAME ...]
# Writes OUT_DIR/ca.crt, OUT_DIR/nats-server.{crt,key} and OUT_DIR/<client>.{crt,key}; the CA key is deleted once
# everything is signed (run the script again to rotate). SERVER_NAMEs (default: the names compose and the
# Kubernetes manifests use) become the server certificate's subjectAltNames; IP addresses are recognised.
# Environment: CLIENTS (default "watcher actor pvc-provisioner status-writer"; each certificate's CN is the NATS
# user), DAYS (default 365), OPENSSL (default openssl), KEY_MODE (default 0600; compose needs 0644, see
# deploy/README.md).
#   compose:    deploy/scripts/nats-tls.sh .stsfleet/tls && chmod 0644 .stsfleet/tls/*.key
#   Kubernetes: deploy/scripts/nats-tls.sh /tmp/stsfleet-tls &&
#               kubectl -n stsfleet-system create secret generic stsfleet-nats-tls --from-file=/tmp/stsfleet-tls
set -euo pipefail

if [ "$#" -lt 1 ]; then
  echo "usage: $0 OUT_DIR [SERVER_NAME ...]" >&2
  exit 2
fi
out=$1
shift
if [ "$#" -eq 0 ]; then
  set -- nats localhost 127.0.0.1 nats.stsfleet-system.svc nats.stsfleet-system.svc.cluster.local
fi
clients=${CLIENTS:-watcher actor pvc-provisioner status-writer}
days=${DAYS:-365}
openssl=${OPENSSL:-openssl}
key_mode=${KEY_MODE:-0600}

sans=""
for name in "$@"; do
  if [[ "$name" =~ ^[0-9.]+$ || "$name" == *:* ]]; then entry="IP:$name"; else entry="DNS:$name"; fi
  sans="${sans:+$sans,}$entry"
done

mkdir -p "$out"
chmod 0700 "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Our own config, so the system's openssl.cnf (default extensions, prompts) cannot change the result.
cat >"$work/openssl.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = stsfleet
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = $sans
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
EOF

newkey=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)

"$openssl" req -x509 -new -config "$work/openssl.cnf" -extensions ca "${newkey[@]}" \
  -keyout "$work/ca.key" -out "$out/ca.crt" -days "$days" -subj "/CN=stsfleet NATS CA" 2>"$work/err" ||
  { cat "$work/err" >&2; exit 1; }

issue() {
  local name=$1 profile=$2
  "$openssl" req -new -config "$work/openssl.cnf" "${newkey[@]}" -keyout "$out/$name.key" -out "$work/$name.csr" \
    -subj "/CN=$name" 2>"$work/$name.err" || { cat "$work/$name.err" >&2; return 1; }
  # Go wants unique, positive serials: random 64-bit ones.
  "$openssl" x509 -req -in "$work/$name.csr" -CA "$out/ca.crt" -CAkey "$work/ca.key" \
    -set_serial "0x$("$openssl" rand -hex 8)" -days "$days" -extfile "$work/openssl.cnf" -extensions "$profile" \
    -out "$out/$name.crt" 2>"$work/$name.err" || { cat "$work/$name.err" >&2; return 1; }
  chmod "$key_mode" "$out/$name.key"
}

# Keys are made in parallel: on a busy machine this is most of the time.
pids=()
issue nats-server server & pids+=($!)
for client in $clients; do
  issue "$client" client & pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit "$status"
