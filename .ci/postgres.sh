#!/usr/bin/env bash
# .ci/postgres.sh - a throwaway PostgreSQL server for the store/pgstore tests.
#
# Usage (called):
#   eval "$(bash .ci/postgres.sh start)"   # start; prints `export VAR=...` lines on stdout
#   bash .ci/postgres.sh stop [DIR]        # shut it down and remove its directory
# Usage (sourced): `. .ci/postgres.sh start` exports the variables into the
# calling shell; `. .ci/postgres.sh stop` stops the server it started.
#
# start installs postgresql with apt-get when no initdb/pg_ctl is found (as
# root, or through sudo), initialises a fresh cluster in a temporary directory
# (initdb --auth=trust), and starts it with pg_ctl on 127.0.0.1 on a free port
# from 5433 up (never 5432, the machine's own server; $LINKBENCH_PG_PORT forces
# one), with its socket in that directory, pg_stat_statements preloaded (the
# statement-sequence test reads it) and small durability settings
# (fsync and synchronous_commit off: the data is thrown away). Running as root,
# initdb and pg_ctl run as the user postgres (runuser), owner of the directory.
# It waits until the server answers, creates the database linkbench and the
# pg_stat_statements extension in it, and exports:
#   LINKBENCH_TEST_PG_DSN   postgres://postgres@127.0.0.1:PORT/linkbench?sslmode=disable
#   LINKBENCH_PG_DIR        the server's directory (what stop removes)
# DIR defaults to $LINKBENCH_PG_DIR, then to the last server started on this
# machine (recorded in ${TMPDIR:-/tmp}/linkbench-postgres.current).

_lbp_log() { printf 'postgres.sh: %s\n' "$*" >&2; }

_lbp_pointer() { printf '%s\n' "${TMPDIR:-/tmp}/linkbench-postgres.current"; }

# _lbp_bindir: the directory of initdb and pg_ctl (newest installed version).
_lbp_bindir() {
	local d
	if [ -n "${LINKBENCH_PG_BINDIR:-}" ]; then
		printf '%s\n' "$LINKBENCH_PG_BINDIR"
		return 0
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			printf '%s\n' "$d"
			return 0
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

_lbp_install() {
	_lbp_bindir >/dev/null && return 0
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo="sudo"
		else
			_lbp_log "postgresql is missing and not root (no sudo): install it first"
			return 1
		fi
	fi
	_lbp_log "installing postgresql with apt-get"
	$sudo apt-get update >&2 || return 1
	# The package's own cluster (port 5432) is not started by this script.
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Options::=--force-confold \
		postgresql postgresql-contrib >&2 || return 1
	_lbp_bindir >/dev/null
}

# _lbp_as_owner CMD...: run CMD as the owner of the server's files: the user
# postgres when running as root (initdb refuses root), else the current user.
_lbp_as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# _lbp_port_in_use PORT: something accepts TCP connections on 127.0.0.1:PORT.
_lbp_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

_lbp_pick_port() {
	if [ -n "${LINKBENCH_PG_PORT:-}" ]; then
		if [ "$LINKBENCH_PG_PORT" = 5432 ]; then
			_lbp_log "refusing port 5432 (the machine's own PostgreSQL)"
			return 1
		fi
		printf '%s\n' "$LINKBENCH_PG_PORT"
		return 0
	fi
	local p
	for p in $(seq 5433 5499); do
		if ! _lbp_port_in_use "$p"; then
			printf '%s\n' "$p"
			return 0
		fi
	done
	_lbp_log "no free port in 5433..5499"
	return 1
}

_lbp_base() {
	local base="${1:-${LINKBENCH_PG_DIR:-}}"
	if [ -z "$base" ] && [ -f "$(_lbp_pointer)" ]; then
		base="$(cat "$(_lbp_pointer)")"
	fi
	if [ -z "$base" ]; then
		_lbp_log "no server directory: pass it as an argument or set LINKBENCH_PG_DIR"
		return 1
	fi
	if [ ! -f "$base/.linkbench-postgres" ]; then
		_lbp_log "$base is not a directory made by this script"
		return 1
	fi
	printf '%s\n' "$base"
}

_lbp_start() {
	local sourced="$1" base
	_lbp_install || return 1
	base="$(mktemp -d "${TMPDIR:-/tmp}/linkbench-postgres.XXXXXX")" || return 1
	: >"$base/.linkbench-postgres"
	if ! _lbp_start_in "$sourced" "$base"; then
		_lbp_shutdown "$base"
		rm -rf -- "$base"
		return 1
	fi
}

# _lbp_start_in SOURCED BASE: the body of start, in the fresh directory BASE.
_lbp_start_in() {
	local sourced="$1" base="$2" bin port i
	bin="$(_lbp_bindir)" || { _lbp_log "initdb/pg_ctl not found"; return 1; }
	port="$(_lbp_pick_port)" || return 1
	printf 'PORT=%s\nBIN=%s\n' "$port" "$bin" >"$base/state"
	if [ "$(id -u)" = 0 ]; then
		if ! id postgres >/dev/null 2>&1; then
			useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres >&2 || return 1
		fi
		chown postgres "$base" || return 1
		chmod 755 "$base" || return 1
	fi
	_lbp_log "initialising $base/data ($bin)"
	if ! _lbp_as_owner "$bin/initdb" -D "$base/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
		>"$base/initdb.log" 2>&1; then
		_lbp_log "initdb failed:"
		tail -n 30 "$base/initdb.log" >&2
		return 1
	fi
	cat >>"$base/data/postgresql.conf" <<-EOF
		listen_addresses = '127.0.0.1'
		port = $port
		unix_socket_directories = '$base'
		max_connections = 300
		shared_buffers = ${LINKBENCH_PG_CACHE:-1GB}
		shared_preload_libraries = 'pg_stat_statements'
		pg_stat_statements.track = all
		pg_stat_statements.track_utility = on
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		max_wal_size = 4GB
		checkpoint_timeout = 30min
		logging_collector = off
	EOF
	_lbp_log "starting postgres on 127.0.0.1:$port"
	if ! _lbp_as_owner "$bin/pg_ctl" -D "$base/data" -l "$base/server.log" -w -t 120 start >&2; then
		_lbp_log "pg_ctl start failed; last lines of $base/server.log:"
		tail -n 30 "$base/server.log" >&2 2>/dev/null
		return 1
	fi
	for i in $(seq 1 120); do
		if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" 2>/dev/null; then
			break
		fi
		sleep 0.5
	done
	if ! _lbp_as_owner "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$base" -p "$port" -U postgres -d postgres \
		-c "CREATE DATABASE linkbench" >&2 ||
		! _lbp_as_owner "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$base" -p "$port" -U postgres -d linkbench \
			-c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >&2; then
		_lbp_log "could not create the database linkbench"
		return 1
	fi

	printf '%s\n' "$base" >"$(_lbp_pointer)"
	export LINKBENCH_PG_DIR="$base"
	export LINKBENCH_TEST_PG_DSN="postgres://postgres@127.0.0.1:$port/linkbench?sslmode=disable"
	if [ "$sourced" != 1 ]; then
		printf 'export LINKBENCH_PG_DIR=%q\n' "$LINKBENCH_PG_DIR"
		printf 'export LINKBENCH_TEST_PG_DSN=%q\n' "$LINKBENCH_TEST_PG_DSN"
	fi
	_lbp_log "ready: postgres@127.0.0.1:$port/linkbench, directory $base"
	return 0
}

# _lbp_shutdown BASE: stop the server of BASE (if running).
_lbp_shutdown() {
	local base="$1" bin
	bin="$(sed -n 's/^BIN=//p' "$base/state" 2>/dev/null)"
	[ -n "$bin" ] || bin="$(_lbp_bindir)" || return 0
	if [ -f "$base/data/postmaster.pid" ]; then
		_lbp_as_owner "$bin/pg_ctl" -D "$base/data" -m fast -w -t 60 stop >&2 ||
			_lbp_as_owner "$bin/pg_ctl" -D "$base/data" -m immediate -w -t 30 stop >&2
	fi
	return 0
}

_lbp_stop() {
	local base
	base="$(_lbp_base "${1:-}")" || return 1
	_lbp_log "stopping the server of $base"
	_lbp_shutdown "$base"
	rm -rf -- "$base"
	if [ -f "$(_lbp_pointer)" ] && [ "$(cat "$(_lbp_pointer)")" = "$base" ]; then
		rm -f "$(_lbp_pointer)"
	fi
	if [ "${LINKBENCH_PG_DIR:-}" = "$base" ]; then
		unset LINKBENCH_PG_DIR LINKBENCH_TEST_PG_DSN
	fi
	return 0
}

_lbp_main() {
	local sourced="$1"
	shift
	case "${1:-}" in
	start) _lbp_start "$sourced" ;;
	stop) _lbp_stop "${2:-}" ;;
	*)
		_lbp_log "usage: postgres.sh start | stop [DIR]"
		return 2
		;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	_lbp_main 0 "$@"
	exit $?
elif [ $# -gt 0 ]; then
	_lbp_main 1 "$@"
fi
