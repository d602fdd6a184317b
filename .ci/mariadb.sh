#!/usr/bin/env bash
# .ci/mariadb.sh - a throwaway MariaDB server (InnoDB + ROCKSDB) for the
# store/mysqlstore tests.
#
# Usage (called):
#   eval "$(bash .ci/mariadb.sh start)"   # start; prints `export VAR=...` lines on stdout
#   eval "$(bash .ci/mariadb.sh start-restartable)"  # a second server, for the restart tests only
#   bash .ci/mariadb.sh restart [BASE]    # restart that server (same datadir and port)
#   bash .ci/mariadb.sh stop [BASE]       # shut it down and remove its directory
# Usage (sourced): `. .ci/mariadb.sh start` exports the variables into the
# calling shell; `. .ci/mariadb.sh stop` stops the server it started.
#
# start installs mariadb-server and mariadb-plugin-rocksdb with apt-get when
# they are missing (as root, or through sudo), creates a fresh datadir under a
# temporary directory (mariadb-install-db), starts mariadbd on 127.0.0.1 on a
# free port from 3307 up (never 3306; $LINKBENCH_MARIADB_PORT forces one) with
# its own socket and pid file, the ROCKSDB plugin, no binary log and small
# caches, waits until it answers, creates the user `lbtest` (random password,
# every privilege, allowed to create databases) and exports:
#   LINKBENCH_TEST_MYSQL_DSN              go-sql-driver DSN: lbtest:PW@tcp(127.0.0.1:PORT)/
#   LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB  1: the tests fail rather than skip without ROCKSDB
#   LINKBENCH_MARIADB_DIR                 the server's directory (what stop removes)
# It exits with a non-zero status, printing nothing on stdout, when the server
# does not start.
# start-restartable starts another such server for the tests that restart
# their server (the shared one must stay up for the tests running beside them)
# and exports instead:
#   LINKBENCH_TEST_MYSQL_RESTART_DSN      its DSN
#   LINKBENCH_TEST_MYSQL_RESTART_CMD      a shell command that restarts it
#   LINKBENCH_MARIADB_RESTART_DIR         its directory (what stop removes)
# BASE (the directory) defaults to $LINKBENCH_MARIADB_DIR, then to the last
# server `start` started on this machine (recorded in ${TMPDIR:-/tmp}/linkbench-mariadb.current).
# Set LINKBENCH_MARIADB_ALLOW_NO_ROCKSDB=1 to start without the ROCKSDB engine,
# LINKBENCH_MARIADB_CACHE to the buffer pool and block cache size (default 1G),
# LINKBENCH_MARIADB_OPTS to extra mariadbd options (split at blanks).
#
# The script reads no option file (--no-defaults), so the machine's own
# MariaDB (port 3306, /etc/mysql) is left alone.

_lbm_log() { printf 'mariadb.sh: %s\n' "$*" >&2; }

_lbm_script() {
	local s="${BASH_SOURCE[0]}"
	case "$s" in /*) ;; *) s="$PWD/$s" ;; esac
	printf '%s\n' "$s"
}

# The server start and shutdown shared with spider.sh.
. "$(dirname "$(_lbm_script)")/mariadbd-lib.sh"

_lbm_pointer() { printf '%s\n' "${TMPDIR:-/tmp}/linkbench-mariadb.current"; }

_lbm_rocksdb_plugin() { _lb_mariadb_have_plugin ha_rocksdb.so; }

# (a missing ROCKSDB plugin is judged later: LINKBENCH_MARIADB_ALLOW_NO_ROCKSDB)
_lbm_install() { _lb_mariadb_install _lbm_log ha_rocksdb.so mariadb-plugin-rocksdb optional; }

# _lbm_port_in_use PORT: something accepts TCP connections on 127.0.0.1:PORT.
_lbm_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

_lbm_pick_port() {
	if [ -n "${LINKBENCH_MARIADB_PORT:-}" ]; then
		if [ "$LINKBENCH_MARIADB_PORT" = 3306 ]; then
			_lbm_log "refusing port 3306 (the machine's own MariaDB)"
			return 1
		fi
		printf '%s\n' "$LINKBENCH_MARIADB_PORT"
		return 0
	fi
	local p
	for p in $(seq 3307 3399); do
		if ! _lbm_port_in_use "$p"; then
			printf '%s\n' "$p"
			return 0
		fi
	done
	_lbm_log "no free port in 3307..3399"
	return 1
}

# _lbm_launch BASE PORT: start mariadbd on BASE/data and wait until it answers.
_lbm_launch() {
	local base="$1" port="$2" have_rocksdb="" i
	_lbm_rocksdb_plugin && have_rocksdb=1
	local args=(
		--no-defaults
		"--user=$(id -un)"
		"--datadir=$base/data"
		"--tmpdir=$base/tmp"
		"--socket=$base/mysqld.sock"
		"--pid-file=$base/mysqld.pid"
		"--log-error=$base/error.log"
		"--port=$port"
		--bind-address=127.0.0.1
		--skip-name-resolve
		--skip-log-bin
		"--innodb-buffer-pool-size=${LINKBENCH_MARIADB_CACHE:-1G}"
		--innodb-log-file-size=256M
		--innodb-flush-log-at-trx-commit=2
		--max-connections=400
		--max-allowed-packet=64M
	)
	# Extra server options, e.g. LINKBENCH_MARIADB_OPTS='--max-connections=151'.
	if [ -n "${LINKBENCH_MARIADB_OPTS:-}" ]; then
		local extra
		read -r -a extra <<<"$LINKBENCH_MARIADB_OPTS"
		args+=("${extra[@]}")
	fi
	if [ -n "$have_rocksdb" ]; then
		args+=(--plugin-load-add=ha_rocksdb "--loose-rocksdb-block-cache-size=${LINKBENCH_MARIADB_CACHE:-1G}")
	fi
	_lb_mariadbd_start "$base" _lbm_log "${args[@]}"
}

# _lbm_shutdown BASE: stop the server of BASE (if running) and wait for it to exit.
_lbm_shutdown() { _lb_mariadbd_shutdown "$1"; }

_lbm_base() {
	local base="${1:-${LINKBENCH_MARIADB_DIR:-}}"
	if [ -z "$base" ] && [ -f "$(_lbm_pointer)" ]; then
		base="$(cat "$(_lbm_pointer)")"
	fi
	if [ -z "$base" ]; then
		_lbm_log "no server directory: pass it as an argument or set LINKBENCH_MARIADB_DIR"
		return 1
	fi
	if [ ! -f "$base/.linkbench-mariadb" ]; then
		_lbm_log "$base is not a directory made by this script"
		return 1
	fi
	printf '%s\n' "$base"
}

_lbm_start() {
	local sourced="$1" role="$2" base
	_lbm_install || return 1
	base="$(mktemp -d "${TMPDIR:-/tmp}/linkbench-mariadb.XXXXXX")" || return 1
	: >"$base/.linkbench-mariadb"
	if ! _lbm_start_in "$sourced" "$base" "$role"; then
		_lbm_shutdown "$base"
		rm -rf -- "$base"
		return 1
	fi
}

# _lbm_start_in SOURCED BASE ROLE: the body of start (ROLE main) or
# start-restartable (ROLE restart), in the fresh directory BASE.
_lbm_start_in() {
	local sourced="$1" base="$2" role="$3" port pw script q
	mkdir -p "$base/data" "$base/tmp" || return 1
	port="$(_lbm_pick_port)" || return 1
	# restart starts the server again with the same settings.
	printf 'PORT=%s\nCACHE=%s\nOPTS=%s\n' "$port" "${LINKBENCH_MARIADB_CACHE:-1G}" "${LINKBENCH_MARIADB_OPTS:-}" >"$base/state"
	_lbm_log "initialising $base/data"
	if ! mariadb-install-db --no-defaults "--user=$(id -un)" "--datadir=$base/data" \
		--auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
		>"$base/install.log" 2>&1; then
		_lbm_log "mariadb-install-db failed:"
		tail -n 30 "$base/install.log" >&2
		return 1
	fi
	_lbm_log "starting mariadbd on 127.0.0.1:$port"
	_lbm_launch "$base" "$port" || return 1

	local rocks
	rocks="$(mariadb --no-defaults --socket="$base/mysqld.sock" -uroot -N -B -e \
		"SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE='ROCKSDB'" 2>/dev/null)"
	case "$rocks" in
	YES | DEFAULT) ;;
	*)
		if [ "${LINKBENCH_MARIADB_ALLOW_NO_ROCKSDB:-}" != 1 ]; then
			_lbm_log "the ROCKSDB engine did not load; last lines of $base/error.log:"
			tail -n 30 "$base/error.log" >&2 2>/dev/null
			return 1
		fi
		_lbm_log "warning: no ROCKSDB engine"
		rocks=""
		;;
	esac

	pw="lb$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
	if ! mariadb --no-defaults --socket="$base/mysqld.sock" -uroot -e "
		CREATE USER 'lbtest'@'127.0.0.1' IDENTIFIED BY '$pw';
		CREATE USER 'lbtest'@'localhost' IDENTIFIED BY '$pw';
		GRANT ALL PRIVILEGES ON *.* TO 'lbtest'@'127.0.0.1' WITH GRANT OPTION;
		GRANT ALL PRIVILEGES ON *.* TO 'lbtest'@'localhost' WITH GRANT OPTION;"; then
		_lbm_log "could not create the test user"
		return 1
	fi

	if [ "$role" = restart ]; then
		script="$(_lbm_script)"
		printf -v q 'bash %q restart %q' "$script" "$base"
		export LINKBENCH_MARIADB_RESTART_DIR="$base"
		export LINKBENCH_TEST_MYSQL_RESTART_DSN="lbtest:$pw@tcp(127.0.0.1:$port)/"
		export LINKBENCH_TEST_MYSQL_RESTART_CMD="$q"
		if [ "$sourced" != 1 ]; then
			printf 'export LINKBENCH_MARIADB_RESTART_DIR=%q\n' "$LINKBENCH_MARIADB_RESTART_DIR"
			printf 'export LINKBENCH_TEST_MYSQL_RESTART_DSN=%q\n' "$LINKBENCH_TEST_MYSQL_RESTART_DSN"
			printf 'export LINKBENCH_TEST_MYSQL_RESTART_CMD=%q\n' "$LINKBENCH_TEST_MYSQL_RESTART_CMD"
		fi
		_lbm_log "ready (for restart tests): lbtest@tcp(127.0.0.1:$port), directory $base"
		return 0
	fi
	printf '%s\n' "$base" >"$(_lbm_pointer)"
	export LINKBENCH_MARIADB_DIR="$base"
	export LINKBENCH_TEST_MYSQL_DSN="lbtest:$pw@tcp(127.0.0.1:$port)/"
	if [ -n "$rocks" ]; then
		export LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB=1
	fi
	if [ "$sourced" != 1 ]; then
		printf 'export LINKBENCH_MARIADB_DIR=%q\n' "$LINKBENCH_MARIADB_DIR"
		printf 'export LINKBENCH_TEST_MYSQL_DSN=%q\n' "$LINKBENCH_TEST_MYSQL_DSN"
		[ -n "$rocks" ] && printf 'export LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB=1\n'
	fi
	_lbm_log "ready: lbtest@tcp(127.0.0.1:$port), directory $base"
	return 0
}

_lbm_restart() {
	local base port
	base="$(_lbm_base "${1:-}")" || return 1
	port="$(sed -n 's/^PORT=//p' "$base/state")"
	[ -n "$port" ] || { _lbm_log "no port recorded in $base/state"; return 1; }
	local LINKBENCH_MARIADB_CACHE="${LINKBENCH_MARIADB_CACHE:-}" LINKBENCH_MARIADB_OPTS="${LINKBENCH_MARIADB_OPTS:-}"
	if grep -q '^CACHE=' "$base/state"; then
		LINKBENCH_MARIADB_CACHE="$(sed -n 's/^CACHE=//p' "$base/state")"
		LINKBENCH_MARIADB_OPTS="$(sed -n 's/^OPTS=//p' "$base/state")"
	fi
	_lbm_log "restarting the server of $base"
	_lbm_shutdown "$base"
	_lbm_launch "$base" "$port"
}

_lbm_stop() {
	local base
	base="$(_lbm_base "${1:-}")" || return 1
	_lbm_log "stopping the server of $base"
	_lbm_shutdown "$base"
	rm -rf -- "$base"
	if [ -f "$(_lbm_pointer)" ] && [ "$(cat "$(_lbm_pointer)")" = "$base" ]; then
		rm -f "$(_lbm_pointer)"
	fi
	if [ "${LINKBENCH_MARIADB_DIR:-}" = "$base" ]; then
		unset LINKBENCH_MARIADB_DIR LINKBENCH_TEST_MYSQL_DSN LINKBENCH_TEST_MYSQL_REQUIRE_ROCKSDB
	fi
	if [ "${LINKBENCH_MARIADB_RESTART_DIR:-}" = "$base" ]; then
		unset LINKBENCH_MARIADB_RESTART_DIR LINKBENCH_TEST_MYSQL_RESTART_DSN LINKBENCH_TEST_MYSQL_RESTART_CMD
	fi
	return 0
}

_lbm_main() {
	local sourced="$1"
	shift
	case "${1:-}" in
	start) _lbm_start "$sourced" main ;;
	start-restartable) _lbm_start "$sourced" restart ;;
	restart) _lbm_restart "${2:-}" ;;
	stop) _lbm_stop "${2:-}" ;;
	*)
		_lbm_log "usage: mariadb.sh start | start-restartable | restart [DIR] | stop [DIR]"
		return 2
		;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	_lbm_main 0 "$@"
	exit $?
elif [ $# -gt 0 ]; then
	_lbm_main 1 "$@"
fi
