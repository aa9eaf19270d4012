// apps/v1 Deployment defaulting (pkg/apis/apps/v1/defaults.go SetDefaults_Deployment and the generated defaulter for
// its pod template).

import { ensureObject, get, getObject, isObject, set, setDefault, setDefaultString, type JsonObject } from "../json.ts";
import { defaultPodTemplate } from "./pod.ts";

export function defaultDeployment(deployment: JsonObject): void {
  const spec = ensureObject(deployment, "spec");
  setDefault(spec, "replicas", 1);
  const strategy = ensureObject(spec, "strategy");
  setDefaultString(strategy, "type", "RollingUpdate");
  if (get(strategy, "type") === "RollingUpdate") {
    if (!isObject(get(strategy, "rollingUpdate"))) set(strategy, "rollingUpdate", {});
    const rollingUpdate = getObject(strategy, "rollingUpdate") ?? {};
    setDefault(rollingUpdate, "maxUnavailable", "25%");
    setDefault(rollingUpdate, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  defaultPodTemplate(ensureObject(spec, "template"));
}
