#!/usr/bin/env bash
# Makes one random NATS password per stsfleet service and prints them; it writes no file itself, so nothing
# secret lands in the repository unless you put it there.
#   deploy/scripts/nats-credentials.sh env > .stsfleet/compose.env        # for docker compose --env-file
#   deploy/scripts/nats-credentials.sh secret | kubectl -n stsfleet-system apply -f -
# The variable names and Secret keys are the ones deploy/base/nats/auth.conf and the manifests read.
set -euo pipefail

SERVICES=(watcher actor pvc-provisioner status-writer)

random_password() {
  # 24 random bytes as hex: no quoting problems in env files, YAML or the NATS config. The leading letter matters:
  # nats-server parses a `$VAR` reference's value as config, so hex that starts with digits reads as a number
  # (`0123…`) or fails to parse (`12e4…`), and the server refuses to start.
  printf 'p%s' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
}

variable_name() {
  local upper
  upper=$(printf '%s' "$1" | tr 'a-z-' 'A-Z_')
  printf 'STSFLEET_NATS_%s_PASSWORD' "$upper"
}

case "${1:-}" in
  env)
    echo "# stsfleet NATS passwords for docker-compose.yml, made by deploy/scripts/nats-credentials.sh. Keep private."
    for service in "${SERVICES[@]}"; do
      printf '%s=%s\n' "$(variable_name "$service")" "$(random_password)"
    done
    ;;
  secret)
    printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: stsfleet-nats-credentials\n'
    printf '  labels:\n    app.kubernetes.io/name: stsfleet\n    app.kubernetes.io/part-of: stsfleet\n'
    printf 'type: Opaque\nstringData:\n'
    for service in "${SERVICES[@]}"; do
      printf '  %s: "%s"\n' "$service" "$(random_password)"
    done
    ;;
  *)
    echo "usage: $0 env|secret" >&2
    exit 2
    ;;
esac
