#!/usr/bin/env bash
# Checks what deploy/ ships (deploy/README.md): the Kubernetes manifests against the Kubernetes
# API's schema, strictly (an unknown or misspelt field is an error), for the oldest version
# they need (1.29: backoffLimitPerIndex, podReplacementPolicy) and a recent one, with the
# pinned kubernetes-validate (it ships the schemas: no cluster, no network once installed) in
# a virtual environment at target/kubernetes-validate; then that the manifests agree with one
# another (the Job's --shards is its completions, one volume claim, one cache folder); and the
# Slurm scripts' syntax (tests/it/slurm.rs submits them to a real Slurm).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
venv="$target/kubernetes-validate"
want="kubernetes-validate==1.37.0 jsonschema==4.26.0 referencing==0.37.0 PyYAML==6.0.3"
stamp="$venv/.clawrun-pins"
if [ ! -x "$venv/bin/kubernetes-validate" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $want >&2
  echo "$want" > "$stamp"
fi

manifests=(deploy/kubernetes/*.yaml)
for version in 1.29.0 1.37.0; do
  "$venv/bin/kubernetes-validate" --strict --quiet -k "$version" "${manifests[@]}"
done

"$venv/bin/python" - "${manifests[@]}" <<'PY'
import sys, yaml

docs = [d for path in sys.argv[1:] for d in yaml.safe_load_all(open(path)) if d]
by_kind = {d["kind"]: d for d in docs}
job, pvc, toolbox = by_kind["Job"], by_kind["PersistentVolumeClaim"], by_kind["Pod"]
spec = job["spec"]
errors = []
if spec.get("completionMode") != "Indexed":
    errors.append("the Job's completionMode is not Indexed")
pod = spec["template"]["spec"]
container = pod["containers"][0]
args = container["args"]
shards = int(args[args.index("--shards") + 1])
if shards != spec["completions"]:
    errors.append(f"--shards {shards} but completions: {spec['completions']}")
if "--resume" not in args:
    errors.append("the Job's pods do not run with --resume: a retried index would be refused")
def claims(p):
    return {v["persistentVolumeClaim"]["claimName"] for v in p["volumes"] if "persistentVolumeClaim" in v}
for name, p in [("Job", pod), ("toolbox", toolbox["spec"])]:
    if claims(p) != {pvc["metadata"]["name"]}:
        errors.append(f"the {name} mounts {claims(p)}, not the claim storage.yaml makes")
def env(c):
    return {e["name"]: e.get("value") for e in c.get("env", [])}
if env(container).get("CLAWRUN_CACHE_DIR") != env(toolbox["spec"]["containers"][0]).get("CLAWRUN_CACHE_DIR"):
    errors.append("the Job and the toolbox use different CLAWRUN_CACHE_DIR: the warmed cache would go unused")
suite = [m for m in container["volumeMounts"] if m["mountPath"] == args[args.index("--suite") + 1]]
if not suite or not suite[0].get("readOnly"):
    errors.append("the suite is not mounted read-only at the Job's --suite")
for e in errors:
    print(f"deploy/kubernetes: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
PY

for script in deploy/slurm/*.sbatch; do
  bash -n "$script"
done
echo "deploy/: ${#manifests[@]} Kubernetes manifests valid (1.29, 1.37), Slurm scripts parse"
