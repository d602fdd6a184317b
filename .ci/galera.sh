#!/usr/bin/env bash
# .ci/galera.sh - a throwaway three-node MariaDB Galera cluster on loopback,
# for the Galera tests of store/mysqlstore and cmd/linkbench/cli.
#
# Usage:
#   eval "$(bash .ci/galera.sh start)"   # start; prints `export VAR=...` lines on stdout
#   bash .ci/galera.sh kill-node K [DIR]    # SIGKILL node K (1..3)
#   bash .ci/galera.sh restart-node K [DIR] # start node K again (recovering its position: IST)
#   bash .ci/galera.sh status [DIR]         # each node's cluster size and state
#   bash .ci/galera.sh stop [DIR]           # shut every node down and remove the directory
#                                           # (no DIR and no $LINKBENCH_GALERA_DIR: the last
#                                           # cluster `start` started on this machine)
#
# start needs mariadbd, mariadb-install-db and Galera 4 (the galera-4
# package: /usr/lib/galera/libgalera_smm.so, or $LINKBENCH_GALERA_PROVIDER)
# and rsync (the state transfer). It creates a directory under
# ${TMPDIR:-/tmp} with one datadir per node, owned by the user `mysql`
# (the nodes run as that user when the script runs as root: as root the
# rsync state transfer fails), starts node 1 with --wsrep-new-cluster on a
# free SQL port from 4407 up, then nodes 2 and 3, which join it by rsync
# state transfer (each node has its own Galera, IST and state-transfer
# ports, free ports from 14407 up), waits until every node reports
# wsrep_cluster_size=3 and Synced, creates the user `lbtest` (random
# password, every privilege; replicated to every node) and exports:
#   LINKBENCH_TEST_GALERA_DSN  the three nodes' go-sql-driver DSNs, comma-separated
#                              (the form -dsn takes): lbtest:PW@tcp(127.0.0.1:P1)/,...
#   LINKBENCH_GALERA_DIR       the cluster's directory (what stop removes)
#   LINKBENCH_GALERA_CMD       `bash <this script>` with the directory: append
#                              kill-node K or restart-node K
# It exits with a non-zero status, printing nothing on stdout, when the
# cluster does not start (and stops what it started).
#
# The nodes read no option file (--no-defaults), have small caches
# (LINKBENCH_GALERA_CACHE, default 64M), innodb_flush_log_at_trx_commit=2
# (Galera's durability is the other nodes' copies), and shorter failure
# detection than Galera's defaults (a killed node leaves the cluster after
# about 3 s instead of 5 to 15). DIR defaults to $LINKBENCH_GALERA_DIR, then
# to the last cluster `start` started on this machine.

_lbg_log() { printf 'galera.sh: %s\n' "$*" >&2; }

_lbg_script() {
	local s="${BASH_SOURCE[0]}"
	case "$s" in /*) ;; *) s="$PWD/$s" ;; esac
	printf '%s\n' "$s"
}

_lbg_pointer() { printf '%s\n' "${TMPDIR:-/tmp}/linkbench-galera.current"; }

_lbg_provider() {
	local p="${LINKBENCH_GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}"
	[ -f "$p" ] || p=/usr/lib/galera-4/libgalera_smm.so
	[ -f "$p" ] || return 1
	printf '%s\n' "$p"
}

# _lbg_port_in_use PORT: something accepts TCP connections on 127.0.0.1:PORT.
_lbg_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# _lbg_free_ports N FROM: N free ports from FROM up, one a line.
_lbg_free_ports() {
	local n="$1" p="$2" got=0
	while [ "$got" -lt "$n" ] && [ "$p" -lt $(($2 + 500)) ]; do
		if ! _lbg_port_in_use "$p"; then
			printf '%s\n' "$p"
			got=$((got + 1))
		fi
		p=$((p + 1))
	done
	[ "$got" -eq "$n" ] || { _lbg_log "fewer than $n free ports from $2 up"; return 1; }
}

# _lbg_state BASE KEY: a value recorded in BASE/state.
_lbg_state() { sed -n "s/^$2=//p" "$1/state"; }

# _lbg_run_user: the user the nodes run as.
_lbg_run_user() {
	if [ "$(id -u)" = 0 ] && id mysql >/dev/null 2>&1; then echo mysql; else id -un; fi
}

# _lbg_client BASE K ARGS...: the mariadb client as root on node K's socket.
_lbg_client() {
	local base="$1" k="$2"
	shift 2
	mariadb --no-defaults --socket="$base/n$k/mysqld.sock" -uroot --connect-timeout=2 "$@"
}

# _lbg_args BASE K: node K's mariadbd arguments (one a line).
_lbg_args() {
	local base="$1" k="$2" provider user gaddrs i
	provider="$(_lbg_state "$base" PROVIDER)"
	user="$(_lbg_state "$base" USER)"
	gaddrs=""
	for i in 1 2 3; do
		gaddrs="$gaddrs${gaddrs:+,}127.0.0.1:$(_lbg_state "$base" "GPORT$i")"
	done
	local d="$base/n$k"
	cat <<EOF
--no-defaults
--user=$user
--datadir=$d/data
--tmpdir=$d/tmp
--socket=$d/mysqld.sock
--pid-file=$d/mysqld.pid
--log-error=$d/error.log
--port=$(_lbg_state "$base" "PORT$k")
--bind-address=127.0.0.1
--skip-name-resolve
--server-id=$k
--innodb-buffer-pool-size=$(_lbg_state "$base" CACHE)
--innodb-log-file-size=48M
--innodb-flush-log-at-trx-commit=2
--max-connections=300
--max-allowed-packet=64M
--log-bin=$d/data/binlog
--binlog-format=ROW
--innodb-autoinc-lock-mode=2
--wsrep-on=ON
--wsrep-provider=$provider
--wsrep-cluster-name=linkbench
--wsrep-cluster-address=gcomm://$gaddrs
--wsrep-node-name=node$k
--wsrep-node-address=127.0.0.1:$(_lbg_state "$base" "GPORT$k")
--wsrep-sst-method=rsync
--wsrep-sst-receive-address=127.0.0.1:$(_lbg_state "$base" "SPORT$k")
--wsrep-slave-threads=2
--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:$(_lbg_state "$base" "GPORT$k");ist.recv_addr=127.0.0.1:$(_lbg_state "$base" "IPORT$k");gcache.size=64M;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;evs.keepalive_period=PT1S;evs.inactive_check_period=PT0.5S
EOF
}

# _lbg_launch BASE K [EXTRA...]: start node K in the background.
_lbg_launch() {
	local base="$1" k="$2"
	shift 2
	local args=()
	mapfile -t args < <(_lbg_args "$base" "$k")
	args+=("$@")
	rm -f "$base/n$k/mysqld.sock" "$base/n$k/mysqld.pid"
	# The node's own tmp directory also for its state-transfer scripts
	# (run as the node's user, which may not write $TMPDIR).
	TMPDIR="$base/n$k/tmp" mariadbd "${args[@]}" </dev/null >>"$base/n$k/mariadbd.out" 2>&1 &
	printf '%s\n' "$!" >"$base/n$k/launcher.pid"
}

# _lbg_pid BASE K: node K's server process id, if it runs.
_lbg_pid() {
	local base="$1" k="$2" pid=""
	[ -f "$base/n$k/launcher.pid" ] && pid="$(cat "$base/n$k/launcher.pid" 2>/dev/null)"
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

# _lbg_synced BASE K N: node K answers, is Synced, in a cluster of N nodes.
_lbg_synced() {
	local out
	out="$(_lbg_client "$1" "$2" -N -B -e "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('WSREP_CLUSTER_SIZE','WSREP_LOCAL_STATE_COMMENT','WSREP_READY') ORDER BY VARIABLE_NAME" 2>/dev/null)" || return 1
	[ "$(printf '%s' "$out" | tr '\n' ' ')" = "$3 Synced ON" ]
}

# _lbg_wait BASE N SECONDS NODES...: wait until every node of NODES is
# Synced in a cluster of N nodes.
_lbg_wait() {
	local base="$1" n="$2" secs="$3" i k ok
	shift 3
	for i in $(seq 1 $((secs * 4))); do
		ok=1
		for k in "$@"; do
			if [ -z "$(_lbg_pid "$base" "$k")" ]; then
				_lbg_log "node $k exited; last lines of $base/n$k/error.log:"
				tail -n 30 "$base/n$k/error.log" >&2 2>/dev/null
				return 1
			fi
			_lbg_synced "$base" "$k" "$n" || { ok=""; break; }
		done
		[ -n "$ok" ] && return 0
		sleep 0.25
	done
	for k in "$@"; do
		_lbg_log "node $k not Synced in a cluster of $n within ${secs} s; last lines of $base/n$k/error.log:"
		tail -n 15 "$base/n$k/error.log" >&2 2>/dev/null
	done
	return 1
}

# _lbg_shutdown BASE K: stop node K (if running) and wait for it to exit.
_lbg_shutdown() {
	local base="$1" k="$2" pid i
	pid="$(_lbg_pid "$base" "$k")" || pid=""
	[ -z "$pid" ] && return 0
	_lbg_client "$base" "$k" -e "SHUTDOWN" >/dev/null 2>&1 || kill "$pid" 2>/dev/null
	for i in $(seq 1 120); do
		kill -0 "$pid" 2>/dev/null || return 0
		[ "$i" = 60 ] && kill "$pid" 2>/dev/null
		sleep 0.25
	done
	kill -9 "$pid" 2>/dev/null
	return 0
}

_lbg_base() {
	local base="${1:-${LINKBENCH_GALERA_DIR:-}}"
	if [ -z "$base" ] && [ -f "$(_lbg_pointer)" ]; then
		base="$(cat "$(_lbg_pointer)")"
	fi
	if [ -z "$base" ]; then
		_lbg_log "no cluster directory: pass it as an argument or set LINKBENCH_GALERA_DIR"
		return 1
	fi
	if [ ! -f "$base/.linkbench-galera" ]; then
		_lbg_log "$base is not a directory made by this script"
		return 1
	fi
	printf '%s\n' "$base"
}

_lbg_start() {
	local base
	base="$(mktemp -d "${TMPDIR:-/tmp}/linkbench-galera.XXXXXX")" || return 1
	: >"$base/.linkbench-galera"
	if ! _lbg_start_in "$base"; then
		local k
		for k in 3 2 1; do _lbg_shutdown "$base" "$k"; done
		rm -rf -- "$base"
		return 1
	fi
}

_lbg_start_in() {
	local base="$1" provider user t0 k pw ports=() gports=()
	t0=$(date +%s.%N)
	for c in mariadbd mariadb-install-db mariadb rsync; do
		command -v "$c" >/dev/null 2>&1 || { _lbg_log "$c not found (packages mariadb-server, galera-4, rsync)"; return 1; }
	done
	provider="$(_lbg_provider)" || { _lbg_log "no Galera provider (install galera-4, or set LINKBENCH_GALERA_PROVIDER)"; return 1; }
	user="$(_lbg_run_user)"
	mapfile -t ports < <(_lbg_free_ports 3 4407) || return 1
	mapfile -t gports < <(_lbg_free_ports 9 14407) || return 1
	[ "${#ports[@]}" = 3 ] && [ "${#gports[@]}" = 9 ] || return 1
	{
		printf 'PROVIDER=%s\nUSER=%s\nCACHE=%s\n' "$provider" "$user" "${LINKBENCH_GALERA_CACHE:-64M}"
		for k in 1 2 3; do
			printf 'PORT%s=%s\nGPORT%s=%s\nIPORT%s=%s\nSPORT%s=%s\n' "$k" "${ports[k-1]}" \
				"$k" "${gports[3*(k-1)]}" "$k" "${gports[3*(k-1)+1]}" "$k" "${gports[3*(k-1)+2]}"
		done
	} >"$base/state"
	chmod 755 "$base"
	for k in 1 2 3; do
		mkdir -p "$base/n$k/data" "$base/n$k/tmp" || return 1
	done
	[ "$user" != "$(id -un)" ] && chown -R "$user" "$base"/n1 "$base"/n2 "$base"/n3
	if [ "$user" != "$(id -un)" ] && command -v runuser >/dev/null 2>&1 &&
		! runuser -u "$user" -- test -w "$base/n1/data"; then
		_lbg_log "user $user cannot write $base/n1/data: a directory above it (TMPDIR=${TMPDIR:-/tmp}) does not let $user in; set TMPDIR to one it can enter, e.g. /tmp"
		return 1
	fi
	_lbg_log "initialising $base/n1/data"
	# The bootstrap server runs as $user: its temporary files go to the
	# node's own tmp directory, not to $TMPDIR, which $user may not write.
	if ! TMPDIR="$base/n1/tmp" mariadb-install-db --no-defaults "--user=$user" "--datadir=$base/n1/data" \
		--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
		>"$base/install.log" 2>&1; then
		_lbg_log "mariadb-install-db failed ($base/install.log):"
		grep -i -m 10 -e error -e abort -e "can't" -e denied "$base/install.log" >&2
		tail -n 30 "$base/install.log" >&2
		return 1
	fi
	[ "$user" != "$(id -un)" ] && chown -R "$user" "$base"/n1 "$base"/n2 "$base"/n3
	_lbg_log "bootstrapping node 1 on 127.0.0.1:${ports[0]}"
	_lbg_launch "$base" 1 --wsrep-new-cluster
	_lbg_wait "$base" 1 60 1 || return 1
	_lbg_log "joining nodes 2 and 3 (127.0.0.1:${ports[1]}, ${ports[2]}) by rsync state transfer"
	_lbg_launch "$base" 2
	_lbg_launch "$base" 3
	_lbg_wait "$base" 3 120 1 2 3 || return 1

	pw="lb$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
	if ! _lbg_client "$base" 1 -e "
		CREATE USER 'lbtest'@'127.0.0.1' IDENTIFIED BY '$pw';
		CREATE USER 'lbtest'@'localhost' IDENTIFIED BY '$pw';
		GRANT ALL PRIVILEGES ON *.* TO 'lbtest'@'127.0.0.1' WITH GRANT OPTION;
		GRANT ALL PRIVILEGES ON *.* TO 'lbtest'@'localhost' WITH GRANT OPTION;"; then
		_lbg_log "could not create the test user"
		return 1
	fi
	local dsns="" script q
	for k in 1 2 3; do
		dsns="$dsns${dsns:+,}lbtest:$pw@tcp(127.0.0.1:${ports[k-1]})/"
	done
	script="$(_lbg_script)"
	printf -v q 'bash %q' "$script"
	printf '%s\n' "$base" >"$(_lbg_pointer)"
	printf 'export LINKBENCH_GALERA_DIR=%q\n' "$base"
	printf 'export LINKBENCH_TEST_GALERA_DSN=%q\n' "$dsns"
	printf 'export LINKBENCH_GALERA_CMD=%q\n' "LINKBENCH_GALERA_DIR=$(printf '%q' "$base") $q"
	_lbg_log "ready in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo 0)") s: nodes on 127.0.0.1:${ports[0]},${ports[1]},${ports[2]}, directory $base"
	return 0
}

# _lbg_kill_node BASE K: SIGKILL node K and wait until it is gone.
_lbg_kill_node() {
	local base="$1" k="$2" pid i
	pid="$(_lbg_pid "$base" "$k")" || { _lbg_log "node $k is not running"; return 1; }
	kill -9 "$pid"
	for i in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || { _lbg_log "node $k (pid $pid) killed"; return 0; }
		sleep 0.1
	done
	_lbg_log "node $k (pid $pid) did not exit after SIGKILL"
	return 1
}

# _lbg_restart_node BASE K: start node K again from its recovered
# position (mariadbd --wsrep-recover), so that it rejoins by incremental
# state transfer; wait until it is Synced in a cluster of 3.
_lbg_restart_node() {
	local base="$1" k="$2" args=() pos
	if [ -n "$(_lbg_pid "$base" "$k")" ]; then
		_lbg_log "node $k is running"
		return 1
	fi
	mapfile -t args < <(_lbg_args "$base" "$k")
	rm -f "$base/n$k/recover.log"
	mariadbd "${args[@]}" --wsrep-recover --log-error="$base/n$k/recover.log" </dev/null >/dev/null 2>&1
	pos="$(sed -n 's/.*WSREP: Recovered position: *//p' "$base/n$k/recover.log" | tail -n 1 | tr -d ' ')"
	if [ -n "$pos" ]; then
		_lbg_log "restarting node $k at position $pos"
		_lbg_launch "$base" "$k" "--wsrep-start-position=$pos"
	else
		_lbg_log "restarting node $k (no recovered position: full state transfer)"
		_lbg_launch "$base" "$k"
	fi
	local others=() i
	for i in 1 2 3; do [ -n "$(_lbg_pid "$base" "$i")" ] && others+=("$i"); done
	_lbg_wait "$base" 3 120 "${others[@]}"
}

_lbg_status() {
	local base="$1" k
	for k in 1 2 3; do
		printf 'node %s pid=%s port=%s: %s\n' "$k" "$(_lbg_pid "$base" "$k" || echo -)" "$(_lbg_state "$base" "PORT$k")" \
			"$(_lbg_client "$base" "$k" -N -B -e "SELECT GROUP_CONCAT(CONCAT(VARIABLE_NAME,'=',VARIABLE_VALUE)) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('WSREP_CLUSTER_SIZE','WSREP_LOCAL_STATE_COMMENT','WSREP_READY')" 2>/dev/null || echo down)"
	done
}

_lbg_stop() {
	local base="$1" k
	_lbg_log "stopping the cluster of $base"
	for k in 3 2 1; do _lbg_shutdown "$base" "$k"; done
	rm -rf -- "$base"
	if [ -f "$(_lbg_pointer)" ] && [ "$(cat "$(_lbg_pointer)")" = "$base" ]; then
		rm -f "$(_lbg_pointer)"
	fi
	return 0
}

_lbg_node_arg() {
	case "${1:-}" in
	1 | 2 | 3) return 0 ;;
	esac
	_lbg_log "node: want 1, 2 or 3, got '${1:-}'"
	return 2
}

_lbg_main() {
	local base
	case "${1:-}" in
	start) _lbg_start ;;
	stop)
		base="$(_lbg_base "${2:-}")" || return 1
		_lbg_stop "$base"
		;;
	status)
		base="$(_lbg_base "${2:-}")" || return 1
		_lbg_status "$base"
		;;
	kill-node | restart-node)
		_lbg_node_arg "${2:-}" || return 2
		base="$(_lbg_base "${3:-}")" || return 1
		if [ "$1" = kill-node ]; then _lbg_kill_node "$base" "$2"; else _lbg_restart_node "$base" "$2"; fi
		;;
	*)
		_lbg_log "usage: galera.sh start | stop [DIR] | status [DIR] | kill-node K [DIR] | restart-node K [DIR]"
		return 2
		;;
	esac
}

_lbg_main "$@"
exit $?
