#!/bin/sh
# Runs examples/k8s/bench-shards.yml: the setup Job, then the four shards
# (an Indexed Job) starting together 60 s after they are submitted, then the
# merge, verify and gate Job; each waits for the one before it.
#
#   examples/k8s/run.sh IMAGE RUN_NAME
#
# RUN_NAME is the schema the run shares (lowercase letters, digits and _).
set -eu
image=$1
run=$2
here=$(dirname "$0")
start_at=$(($(date +%s) + 60))
manifest=$(sed -e "s|IMAGE|$image|g" -e "s|RUN_NAME|$run|g" -e "s|START_AT_VALUE|$start_at|" \
    "$here/bench-shards.yml")
job() { # NAME: applies that Job of the manifest and waits for it
    printf '%s\n' "$manifest" | awk -v name="$1" '
        /^---/ { if (doc ~ "name: " name "\n") print doc; doc = ""; next }
        { doc = doc $0 "\n" }
        END { if (doc ~ "name: " name "\n") print doc }' | kubectl apply -f -
    kubectl wait --for=condition=complete --timeout=30m "job/$1"
}
job bench-setup
job bench-shards
job bench-merge
kubectl logs job/bench-merge
