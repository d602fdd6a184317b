# .ci/mariadbd-lib.sh - what .ci/mariadb.sh and .ci/spider.sh share: start a
# mariadbd whose files live in one directory (mysqld.sock, mysqld.pid,
# launcher.pid, error.log, mariadbd.out), wait until it answers, and shut it
# down. Sourced, never run; it defines functions only. Each caller passes
# its own log function (the name of a function taking a message).

# _lb_mariadbd_start DIR LOG ARGS...: start mariadbd ARGS in the background
# (its socket and pid file in DIR), record its pid in DIR/launcher.pid and
# wait up to 60 s until it answers on its socket. 1 when it exits first or
# does not answer, with the last lines of DIR/error.log on stderr.
_lb_mariadbd_start() {
	local dir="$1" log="$2" pid i
	shift 2
	rm -f "$dir/mysqld.sock" "$dir/mysqld.pid"
	mariadbd "$@" </dev/null >>"$dir/mariadbd.out" 2>&1 &
	pid=$!
	printf '%s\n' "$pid" >"$dir/launcher.pid"
	for i in $(seq 1 240); do
		if mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot --connect-timeout=2 ping >/dev/null 2>&1; then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			"$log" "mariadbd of $dir exited during start-up; last lines of $dir/error.log:"
			tail -n 30 "$dir/error.log" >&2 2>/dev/null
			return 1
		fi
		sleep 0.25
	done
	"$log" "mariadbd of $dir did not answer within 60 s; last lines of $dir/error.log:"
	tail -n 30 "$dir/error.log" >&2 2>/dev/null
	return 1
}

# _lb_mariadbd_shutdown DIR: stop the server of DIR (if running) and wait
# for it to exit: SHUTDOWN on its socket, SIGTERM after 30 s, SIGKILL after 60 s.
_lb_mariadbd_shutdown() {
	local dir="$1" pid="" i
	[ -f "$dir/mysqld.pid" ] && pid="$(cat "$dir/mysqld.pid" 2>/dev/null)"
	[ -z "$pid" ] && [ -f "$dir/launcher.pid" ] && pid="$(cat "$dir/launcher.pid" 2>/dev/null)"
	if [ -S "$dir/mysqld.sock" ]; then
		mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot --connect-timeout=5 shutdown >/dev/null 2>&1 || true
	fi
	[ -z "$pid" ] && return 0
	for i in $(seq 1 240); do
		kill -0 "$pid" 2>/dev/null || return 0
		[ "$i" = 120 ] && kill "$pid" 2>/dev/null
		sleep 0.25
	done
	kill -9 "$pid" 2>/dev/null
	return 0
}

# _lb_mariadb_have_plugin SO: MariaDB's plugin directory holds SO.
_lb_mariadb_have_plugin() {
	local d
	for d in /usr/lib/mysql/plugin /usr/lib/mariadb/plugin /usr/lib64/mysql/plugin; do
		[ -f "$d/$1" ] && return 0
	done
	return 1
}

# _lb_mariadb_install LOG SO PACKAGE [optional]: make sure the MariaDB
# server, its clients and the plugin SO (from Debian's PACKAGE) are
# installed: with apt-get (lists updated first), as root or through sudo,
# when something is missing. With "optional", a plugin still missing after
# the installation is the caller's to judge (not an error here).
_lb_mariadb_install() {
	local log="$1" so="$2" pkg="$3" optional="${4:-}" sudo=""
	if command -v mariadbd >/dev/null 2>&1 && command -v mariadb-install-db >/dev/null 2>&1 &&
		command -v mariadb-admin >/dev/null 2>&1 && command -v mariadb >/dev/null 2>&1 &&
		_lb_mariadb_have_plugin "$so"; then
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null 2>&1; then
			sudo="sudo"
		else
			"$log" "mariadb-server/$pkg missing and not root (no sudo): install them first"
			return 1
		fi
	fi
	"$log" "installing mariadb-server $pkg with apt-get"
	$sudo apt-get update >&2 || return 1
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Options::=--force-confold \
		mariadb-server "$pkg" >&2 || return 1
	[ -n "$optional" ] && return 0
	_lb_mariadb_have_plugin "$so" || { "$log" "no $so after installing $pkg"; return 1; }
}
