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
