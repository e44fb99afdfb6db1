# Sourced by scripts/ci_packaging.sh and scripts/ci_first_run.sh: podman with a configuration and
# storage of its own under WORK (the caller's temporary folder, removed at its end), so nothing
# of the machine's podman is used or left behind.
#
#   . scripts/podman_env.sh            (with WORK set)
mkdir -p "$WORK/podman"
cat >"$WORK/podman/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$WORK/podman/tmp"
EOF
cat >"$WORK/podman/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$WORK/podman/graph"
runroot = "$WORK/podman/run"
EOF
CONTAINERS_CONF="$WORK/podman/containers.conf"
CONTAINERS_STORAGE_CONF="$WORK/podman/storage.conf"
export CONTAINERS_CONF CONTAINERS_STORAGE_CONF
