#!/usr/bin/env python3
"""Compare hybridgen's kube-flannel.yml with flannel's own manifest at every release tag.

For each tag of hybridgen's release table, renders a spec with that flannel version (on a Kubernetes
release the tag was made for) and compares the result object by object with
`Documentation/kube-flannel.yml` at the tag (for v0.11.0: flannel master at 2140ac87, the manifest
the Kubernetes Windows guide deploys). The differences hybridgen intends (docs/internals.md, "flannel
releases") are set aside and reported separately; anything else is a failure.

usage: tools/compare-flannel-releases.py HYBRIDGEN FLANNEL_GIT_DIR [TAG...]
  HYBRIDGEN        the hybridgen binary
  FLANNEL_GIT_DIR  a clone of github.com/flannel-io/flannel (its .git directory or work tree)
Needs PyYAML. Exit status 1 when any tag has an unintended difference.
"""
import json, os, re, subprocess, sys, tempfile

import yaml

SPEC = """apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: compare}}
kubernetes: {{version: "{kubernetes}"}}
network: {{clusterCidr: 10.244.0.0/16, serviceCidr: 10.96.0.0/12}}
flannel: {{version: {tag}, backend: vxlan}}
nodes:
  - {{name: control-0, os: linux, roles: [controlplane, etcd, worker], address: 192.168.10.10}}
"""


def version(tag):
    return tuple(int(part) for part in tag[1:].split("."))


def kubernetes_for(tag):
    """A Kubernetes release of the tag's time, which serves every API its manifest uses."""
    return "1.21.3" if version(tag) < (0, 19, 0) else "1.30.2"


def upstream(git_dir, tag):
    revision = "2140ac876ef134e0ed5af15c65e414cf26827915" if tag == "v0.11.0" else tag
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{revision}:Documentation/kube-flannel.yml"],
                          capture_output=True, text=True, check=True).stdout
    return objects(text)


def objects(text):
    found = {}
    for document in yaml.safe_load_all(text):
        if document:
            metadata = document.get("metadata", {})
            found[(document["kind"], metadata.get("namespace", ""), metadata["name"])] = document
    return found


def rendered(binary, tag):
    with tempfile.TemporaryDirectory() as scratch:
        spec = os.path.join(scratch, "spec.yaml")
        with open(spec, "w") as file:
            file.write(SPEC.format(tag=tag, kubernetes=kubernetes_for(tag)))
        out = os.path.join(scratch, "out")
        subprocess.run([binary, "render", spec, "--out", out], capture_output=True, check=True)
        with open(os.path.join(out, "kube-flannel.yml")) as file:
            return objects(file.read())


def set_aside_planned_values(objects_by_key):
    """net-conf.json and the CNI config name are the plan's: not compared."""
    for (kind, _, _), document in objects_by_key.items():
        if kind == "ConfigMap":
            data = document.get("data", {})
            data.pop("net-conf.json", None)
            if "cni-conf.json" in data:
                cni = json.loads(data["cni-conf.json"])
                cni.pop("name", None)
                data["cni-conf.json"] = cni


def differences(ours, theirs, path=""):
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = []
        for key in sorted(set(ours) | set(theirs)):
            if key not in ours:
                found.append((f"{path}/{key}", None, theirs[key]))
            elif key not in theirs:
                found.append((f"{path}/{key}", ours[key], None))
            else:
                found += differences(ours[key], theirs[key], f"{path}/{key}")
        return found
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        found = []
        for index, (mine, other) in enumerate(zip(ours, theirs)):
            found += differences(mine, other, f"{path}/{index}")
        return found
    return [] if ours == theirs else [(path, ours, theirs)]


def intended(tag, key, path, ours, theirs):
    """Why a difference is one hybridgen means to make, or None."""
    kind = key[0]
    if kind == "DaemonSet" and re.search(r"/containers/0/image$|/initContainers/\d+/image$", path) \
            and isinstance(ours, str) and "flannel-cni-plugin" not in ours and ours.endswith(":" + tag):
        return "the release's own flanneld image (the tag's manifest lags a release)"
    if kind == "PodSecurityPolicy" and path == "/spec/allowedHostPaths":
        extra = [entry for entry in ours if entry not in theirs]
        if all(entry["pathPrefix"] in ("/opt/cni/bin", "/run/xtables.lock") for entry in extra) \
                and all(entry in ours for entry in theirs):
            return "the PodSecurityPolicy allows the host paths the pod mounts"
    return None


def main(arguments):
    if len(arguments) < 2:
        sys.exit(__doc__)
    binary, git_dir = arguments[0], arguments[1]
    if os.path.isdir(os.path.join(git_dir, ".git")):
        git_dir = os.path.join(git_dir, ".git")
    tags = arguments[2:] or sorted(
        (tag for tag in subprocess.run(["git", "--git-dir", git_dir, "tag"], capture_output=True, text=True,
                                       check=True).stdout.split() if re.fullmatch(r"v0\.(1[1-9]|2\d)\.\d+", tag)),
        key=version)
    failures = 0
    for tag in tags:
        ours, theirs = rendered(binary, tag), upstream(git_dir, tag)
        set_aside_planned_values(ours)
        set_aside_planned_values(theirs)
        unintended, reasons = [], set()
        for key in sorted(set(ours) | set(theirs)):
            if key not in ours or key not in theirs:
                unintended.append(f"{'/'.join(key)}: {'missing' if key not in ours else 'extra'} object")
                continue
            for path, mine, other in differences(ours[key], theirs[key]):
                reason = intended(tag, key, path, mine, other)
                if reason:
                    reasons.add(reason)
                else:
                    unintended.append(f"{'/'.join(key)} {path}: ours {json.dumps(mine)} upstream {json.dumps(other)}")
        status = "same" if not reasons else "same but for: " + "; ".join(sorted(reasons))
        print(f"{tag} (Kubernetes {kubernetes_for(tag)}): {status if not unintended else 'DIFFERS'}")
        for line in unintended:
            print("  " + line)
        failures += bool(unintended)
    print(f"{len(tags)} tags compared, {failures} with unintended differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
