#!/usr/bin/env bash
# Runs the production cloud-controller-manager against the offline test bed, the way an operator
# would run it on a cluster: fake Azure (ARM, Entra ID, IMDS) seeded with a topology, the embedded
# Kubernetes API server, every VM of the topology registered as a kubelet with
# `--cloud-provider=external` registers it (tainted), then the CCM with upstream's flags and an
# azure.json. It waits until the CCM has initialised every node and given a LoadBalancer Service
# its Azure IP, prints both, and keeps everything running until Ctrl-C (or exits at once with
# --once). Everything it starts is stopped on exit.
#
# usage: ccm/run-against-fakes.sh [--once] [--topology fakes/examples/small.yaml]
set -euo pipefail

cd "$(dirname "$0")/.."
once=false
topology=fakes/examples/small.yaml
while [ $# -gt 0 ]; do
  case "$1" in
    --once) once=true ;;
    --topology) topology="$2"; shift ;;
    *) echo "unknown argument: $1 (accepted: --once, --topology FILE)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$topology" != fakes/examples/small.yaml ]; then
  # The azure.json below carries small.yaml's names and app; other topologies need their own.
  echo "--topology: only fakes/examples/small.yaml is wired here (its app, resource group and network)" >&2
  exit 2
fi

cargo build --release --quiet -p azure-fakes -p azure-ccm --bin azure-fakes --bin cloud-controller-manager
bin=target/release
work=target/ccm-against-fakes
rm -rf "$work"
mkdir -p "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits until FILE has a line matching PATTERN (the process printing it must keep running).
wait_line() {
  local file=$1 pattern=$2 pid=$3
  for _ in $(seq 1 600); do
    grep -q "$pattern" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { echo "process $pid exited; its output:" >&2; cat "$file" >&2; exit 1; }
    sleep 0.1
  done
  echo "timed out waiting for '$pattern' in $file" >&2
  exit 1
}

"$bin/azure-fakes" serve --topology "$topology" --listen 127.0.0.1:0 --tls-dir "$work/tls" \
  >"$work/fake-azure.out" 2>"$work/fake-azure.log" &
pids+=($!)
wait_line "$work/fake-azure.out" '^ready$' "${pids[-1]}"
field() { sed -n "s/^$1: //p" "$work/fake-azure.out" | head -n1; }
arm=$(field arm)
arm=${arm%/}
tenant=$(field tenant)
subscription=$(field subscription)
ca=$(field ca)

"$bin/azure-fakes" kube-apiserver --listen 127.0.0.1:0 --kubeconfig-out "$work/kubeconfig" \
  >"$work/kube-apiserver.out" 2>"$work/kube-apiserver.log" &
pids+=($!)
wait_line "$work/kube-apiserver.out" 'kubeconfig written to' "${pids[-1]}"
export KUBECONFIG="$PWD/$work/kubeconfig"

# small.yaml's client-secret app and network names, as upstream's azure.json spells them.
cat >"$work/azure.json" <<EOF
{
  "cloud": "AzureStackCloud",
  "disableAzureStackCloud": true,
  "resourceManagerEndpoint": "$arm/",
  "tenantId": "$tenant",
  "subscriptionId": "$subscription",
  "aadClientId": "6e1b3c52-6a1f-4d0e-9a3b-3c2f7d9e0a11",
  "aadClientSecret": "fake-secret-not-for-production",
  "resourceGroup": "k8s-small-rg",
  "location": "eastus",
  "vmType": "standard",
  "loadBalancerSku": "standard",
  "securityGroupName": "k8s-nsg",
  "vnetName": "k8s-vnet",
  "subnetName": "k8s-subnet"
}
EOF

# Every VM registers as a kubelet with --cloud-provider=external does: tainted, no providerID.
nodes=$(sed -n 's/^imds \([^:]*\): .*/\1/p' "$work/fake-azure.out")
for node in $nodes; do
  kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $node
  labels: {kubernetes.io/hostname: $node, kubernetes.io/os: linux}
spec:
  taints: [{key: node.cloudprovider.kubernetes.io/uninitialized, value: "true", effect: NoSchedule}]
EOF
done

SSL_CERT_FILE="$ca" "$bin/cloud-controller-manager" \
  --cloud-provider=azure --cloud-config="$work/azure.json" --kubeconfig="$KUBECONFIG" \
  --controllers='*,-route' --cluster-name=kubernetes --bind-address=127.0.0.1 --secure-port=10258 \
  --v=2 2>"$work/cloud-controller-manager.log" &
ccm=$!
pids+=($ccm)

until [ -z "$(kubectl get nodes -o jsonpath='{range .items[*]}{.spec.taints[*].key}{"\n"}{end}' | grep uninitialized || true)" ]; do
  kill -0 "$ccm" 2>/dev/null || { echo "cloud-controller-manager exited:" >&2; tail -n 30 "$work/cloud-controller-manager.log" >&2; exit 1; }
  sleep 0.5
done
echo "== nodes initialised by cloud-controller-manager"
kubectl get nodes -o custom-columns='NAME:.metadata.name,PROVIDER-ID:.spec.providerID,ZONE:.metadata.labels.topology\.kubernetes\.io/zone,TYPE:.metadata.labels.node\.kubernetes\.io/instance-type,INTERNAL-IP:.status.addresses[?(@.type=="InternalIP")].address'

kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{name: http, port: 80, protocol: TCP}]
EOF
until [ -n "$(kubectl get service web -o jsonpath='{.status.loadBalancer.ingress[0].ip}')" ]; do
  kill -0 "$ccm" 2>/dev/null || { echo "cloud-controller-manager exited:" >&2; tail -n 30 "$work/cloud-controller-manager.log" >&2; exit 1; }
  sleep 0.5
done
echo "== LoadBalancer Service served from Azure"
kubectl get service web
echo "== ARM calls the CCM made, by operation (fake's journal)"
curl -s --cacert "$ca" "$arm/admin/journal" | grep -o '"operation":"[^"]*"' | cut -d'"' -f4 | sort | uniq -c

if $once; then
  exit 0
fi
cat <<EOF

Running. Try:
  export KUBECONFIG=$KUBECONFIG
  kubectl get nodes,services,events,leases -A
  curl -sk https://127.0.0.1:10258/healthz
  curl -s --cacert $ca $arm/admin/journal
Logs: $work/*.log. Ctrl-C stops everything.
EOF
wait "$ccm"
