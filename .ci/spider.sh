#!/usr/bin/env bash
# .ci/spider.sh - a throwaway MariaDB Spider set-up: a head node with the
# Spider engine and two data nodes (plain InnoDB servers), for the Spider
# tests and for users who want to try `-create-schema -D engine=spider`.
#
# Usage:
#   eval "$(bash .ci/spider.sh start)"   # start; prints `export VAR=...` lines on stdout
#   bash .ci/spider.sh stop [DIR]        # shut the three servers down and remove DIR
#
# start installs mariadb-server and mariadb-plugin-spider with apt-get when
# they are missing (as root, or through sudo), creates a temporary directory
# with three fresh datadirs (mariadb-install-db) and starts three mariadbd
# (--no-defaults: the machine's own MariaDB and /etc/mysql are left alone) on
# 127.0.0.1, on free ports from 4507 up ($LINKBENCH_SPIDER_PORT forces the
# first; the others follow it):
#   head  the Spider engine loaded at server start (--plugin-load-add=ha_spider.so;
#         loading plugins at run time with INSTALL SONAME is avoided, it crashed
#         this MariaDB for ha_rocksdb), spider_conn_recycle_mode=1 (keep the
#         connections to the data nodes; see docs/spider.md)
#   d0,d1 InnoDB only: the shards
# each with its own socket, pid file, no binary log and small caches
# ($LINKBENCH_SPIDER_CACHE, default 256M, per server). It creates the user
# `lbtest` with the same random password and every privilege on all three
# (the head reaches the data nodes as that user) and exports:
#   LINKBENCH_TEST_SPIDER_DSN         the head's go-sql-driver DSN: lbtest:PW@tcp(127.0.0.1:PORT)/
#   LINKBENCH_TEST_SPIDER_DATA_NODES  the data nodes, as the spider_data_nodes key takes them:
#                                     127.0.0.1:PORT0,127.0.0.1:PORT1 (same user and password)
#   LINKBENCH_TEST_SPIDER_DATA_DSNS   the data nodes' DSNs, comma-separated (for the
#                                     tests, which count rows on each node directly)
#   LINKBENCH_SPIDER_DIR              the set-up's directory (what stop removes)
# It exits with a non-zero status, printing nothing on stdout, when any of
# the three servers does not start or the head has no SPIDER engine.
# DIR of stop defaults to $LINKBENCH_SPIDER_DIR.
set -u

_lbs_log() { printf 'spider.sh: %s\n' "$*" >&2; }

# The server start and shutdown shared with mariadb.sh.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mariadbd-lib.sh"

_lbs_have_plugin() { _lb_mariadb_have_plugin ha_spider.so; }

_lbs_install() { _lb_mariadb_install _lbs_log ha_spider.so mariadb-plugin-spider; }

# _lbs_port_in_use PORT: something accepts TCP connections on 127.0.0.1:PORT.
_lbs_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# _lbs_pick_ports: three free ports, from $LINKBENCH_SPIDER_PORT or 4507 up.
_lbs_pick_ports() {
	local p n=0 out=() first="${LINKBENCH_SPIDER_PORT:-4507}"
	if [ "$first" = 3306 ]; then
		_lbs_log "refusing port 3306 (the machine's own MariaDB)"
		return 1
	fi
	for p in $(seq "$first" $((first + 200))); do
		[ "$p" = 3306 ] && continue
		if ! _lbs_port_in_use "$p"; then
			out+=("$p")
			n=$((n + 1))
			[ "$n" = 3 ] && break
		fi
	done
	if [ "$n" != 3 ]; then
		_lbs_log "no three free ports in $first..$((first + 200))"
		return 1
	fi
	printf '%s\n' "${out[@]}"
}

# _lbs_launch DIR PORT SPIDER: initialise DIR/data and start mariadbd on it
# (with the Spider engine when SPIDER is 1); wait until it answers.
_lbs_launch() {
	local dir="$1" port="$2" spider="$3" i
	mkdir -p "$dir/data" "$dir/tmp" || return 1
	# Its own tmpdir: bootstraps running in parallel in one /tmp collide on
	# their temporary tables ("Unknown table mysql.tmp_user_nopasswd").
	if ! TMPDIR="$dir/tmp" mariadb-install-db --no-defaults "--user=$(id -un)" "--datadir=$dir/data" \
		--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
		>"$dir/install.log" 2>&1; then
		_lbs_log "mariadb-install-db failed for $dir:"
		grep -i -m 10 -e error -e abort "$dir/install.log" >&2
		tail -n 30 "$dir/install.log" >&2
		return 1
	fi
	local args=(
		--no-defaults
		"--user=$(id -un)"
		"--datadir=$dir/data"
		"--tmpdir=$dir/tmp"
		"--socket=$dir/mysqld.sock"
		"--pid-file=$dir/mysqld.pid"
		"--log-error=$dir/error.log"
		"--port=$port"
		--bind-address=127.0.0.1
		--skip-name-resolve
		--skip-log-bin
		"--innodb-buffer-pool-size=${LINKBENCH_SPIDER_CACHE:-256M}"
		--innodb-log-file-size=64M
		--innodb-flush-log-at-trx-commit=2
		--max-connections=400
		--max-allowed-packet=64M
		--performance-schema=OFF
	)
	if [ "$spider" = 1 ]; then
		# spider_conn_recycle_mode 1: the head keeps its connections to
		# the data nodes; with the default 0 it connects anew for every
		# transaction (measured: 2 data-node connections per request).
		args+=(--plugin-load-add=ha_spider.so --loose-spider-conn-recycle-mode=1)
	fi
	printf '%s\n' "$port" >"$dir/port"
	_lb_mariadbd_start "$dir" _lbs_log "${args[@]}"
}

# _lbs_shutdown DIR: stop the server of DIR (if running) and wait for it to exit.
_lbs_shutdown() { _lb_mariadbd_shutdown "$1"; }

_lbs_stop_all() {
	local base="$1" n
	for n in head d0 d1; do
		[ -d "$base/$n" ] && _lbs_shutdown "$base/$n" &
	done
	wait
}

_lbs_start() {
	local base
	_lbs_install || return 1
	base="$(mktemp -d "${TMPDIR:-/tmp}/linkbench-spider.XXXXXX")" || return 1
	: >"$base/.linkbench-spider"
	if ! _lbs_start_in "$base"; then
		_lbs_stop_all "$base"
		rm -rf -- "$base"
		return 1
	fi
}

_lbs_start_in() {
	local base="$1" ports pw n i port spider dsns="" nodes="" q
	ports=($(_lbs_pick_ports)) || return 1
	[ "${#ports[@]}" = 3 ] || return 1
	# The three servers initialise and start in parallel.
	local names=(head d0 d1) pids=()
	for i in 0 1 2; do
		spider=0
		[ "$i" = 0 ] && spider=1
		_lbs_log "starting ${names[$i]} on 127.0.0.1:${ports[$i]}"
		_lbs_launch "$base/${names[$i]}" "${ports[$i]}" "$spider" &
		pids+=($!)
	done
	local ok=1
	for i in 0 1 2; do
		wait "${pids[$i]}" || ok=0
	done
	[ "$ok" = 1 ] || return 1

	local engine
	engine="$(mariadb --no-defaults --socket="$base/head/mysqld.sock" -uroot -N -B -e \
		"SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE='SPIDER'" 2>/dev/null)"
	case "$engine" in
	YES | DEFAULT) ;;
	*)
		_lbs_log "the head has no SPIDER engine; last lines of $base/head/error.log:"
		tail -n 30 "$base/head/error.log" >&2 2>/dev/null
		return 1
		;;
	esac

	pw="lb$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
	for n in "${names[@]}"; do
		if ! mariadb --no-defaults --socket="$base/$n/mysqld.sock" -uroot -e "
			CREATE USER 'lbtest'@'127.0.0.1' IDENTIFIED BY '$pw';
			CREATE USER 'lbtest'@'localhost' IDENTIFIED BY '$pw';
			GRANT ALL PRIVILEGES ON *.* TO 'lbtest'@'127.0.0.1' WITH GRANT OPTION;
			GRANT ALL PRIVILEGES ON *.* TO 'lbtest'@'localhost' WITH GRANT OPTION;"; then
			_lbs_log "could not create the test user on $n"
			return 1
		fi
	done
	for i in 1 2; do
		port="${ports[$i]}"
		nodes="${nodes:+$nodes,}127.0.0.1:$port"
		dsns="${dsns:+$dsns,}lbtest:$pw@tcp(127.0.0.1:$port)/"
	done
	printf 'export LINKBENCH_SPIDER_DIR=%q\n' "$base"
	printf 'export LINKBENCH_TEST_SPIDER_DSN=%q\n' "lbtest:$pw@tcp(127.0.0.1:${ports[0]})/"
	printf 'export LINKBENCH_TEST_SPIDER_DATA_NODES=%q\n' "$nodes"
	printf 'export LINKBENCH_TEST_SPIDER_DATA_DSNS=%q\n' "$dsns"
	_lbs_log "ready: head lbtest@tcp(127.0.0.1:${ports[0]}), data nodes $nodes, directory $base"
	return 0
}

_lbs_stop() {
	local base="${1:-${LINKBENCH_SPIDER_DIR:-}}"
	if [ -z "$base" ]; then
		_lbs_log "no directory: pass it as an argument or set LINKBENCH_SPIDER_DIR"
		return 1
	fi
	if [ ! -f "$base/.linkbench-spider" ]; then
		_lbs_log "$base is not a directory made by this script"
		return 1
	fi
	_lbs_log "stopping the servers of $base"
	_lbs_stop_all "$base"
	rm -rf -- "$base"
}

case "${1:-}" in
start) _lbs_start ;;
stop) _lbs_stop "${2:-}" ;;
*)
	_lbs_log "usage: spider.sh start | stop [DIR]"
	exit 2
	;;
esac
