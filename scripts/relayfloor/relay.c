/*
 * relay: the least a user-space TCP relay can do, for the proxy benchmark's
 * floor (scripts/bench-proxy-floor.sh; docs/PERFORMANCE.md, "Debugger
 * proxy").
 *
 *   relay LISTEN_PORT TARGET_PORT        a thread per direction, blocking reads
 *   relay -spin LISTEN_PORT TARGET_PORT  one thread polling both sockets
 *                                        without ever sleeping (it burns a core)
 *
 * It listens on 127.0.0.1:LISTEN_PORT and, for each connection, connects to
 * 127.0.0.1:TARGET_PORT and copies bytes both ways until either side closes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct link { int from, to; };

static int write_all(int fd, const char *b, ssize_t n)
{
	while (n > 0) {
		ssize_t m = write(fd, b, n);
		if (m < 0 && errno == EAGAIN)
			continue;
		if (m <= 0)
			return -1;
		b += m;
		n -= m;
	}
	return 0;
}

static void *copy_blocking(void *arg)
{
	struct link *l = arg;
	static __thread char buf[1 << 16];
	for (;;) {
		ssize_t n = read(l->from, buf, sizeof buf);
		if (n <= 0 || write_all(l->to, buf, n) < 0)
			break;
	}
	shutdown(l->to, SHUT_WR);
	return NULL;
}

static void *copy_spinning(void *arg)
{
	struct link *l = arg;
	static __thread char buf[1 << 16];
	int fd[2] = { l->from, l->to };
	fcntl(fd[0], F_SETFL, O_NONBLOCK);
	fcntl(fd[1], F_SETFL, O_NONBLOCK);
	for (;;) {
		int moved = 0;
		for (int i = 0; i < 2; i++) {
			ssize_t n = read(fd[i], buf, sizeof buf);
			if (n == 0 || (n < 0 && errno != EAGAIN) || (n > 0 && write_all(fd[1 - i], buf, n) < 0)) {
				close(fd[0]);
				close(fd[1]);
				return NULL;
			}
			moved |= n > 0;
		}
		if (!moved)
			sched_yield();
	}
}

int main(int argc, char **argv)
{
	int spin = argc == 4 && strcmp(argv[1], "-spin") == 0;
	if (argc != 3 + spin) {
		fprintf(stderr, "usage: relay [-spin] LISTEN_PORT TARGET_PORT\n");
		return 2;
	}
	int one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in ta = sa;
	sa.sin_port = htons(atoi(argv[1 + spin]));
	ta.sin_port = htons(atoi(argv[2 + spin]));
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(ls, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(ls, 4) < 0) {
		perror("relay: listen");
		return 1;
	}
	for (;;) {
		int c = accept(ls, NULL, NULL);
		if (c < 0)
			continue;
		int t = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(t, (struct sockaddr *)&ta, sizeof ta) < 0) {
			close(c);
			close(t);
			continue;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(t, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		struct link *up = malloc(sizeof *up), *down = malloc(sizeof *down);
		*up = (struct link){ c, t };
		*down = (struct link){ t, c };
		pthread_t th;
		if (spin) {
			free(down);
			if (pthread_create(&th, NULL, copy_spinning, up) == 0)
				pthread_detach(th);
		} else {
			if (pthread_create(&th, NULL, copy_blocking, up) == 0)
				pthread_detach(th);
			if (pthread_create(&th, NULL, copy_blocking, down) == 0)
				pthread_detach(th);
		}
	}
}
