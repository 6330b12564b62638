/*
 * pingpong: what one loopback TCP round trip between two processes costs on
 * this machine, with nothing in between and nothing to do: the floor under
 * every JDWP round trip, direct or proxied (scripts/bench-proxy-floor.sh).
 *
 *   pingpong [-spin] N
 *
 * The parent sends 11 bytes (a JDWP header) and reads them back, N times; a
 * child process echoes them. With -spin the child polls its socket without
 * ever sleeping, so that only the parent pays for being woken. Prints the
 * median and 90th percentile in microseconds.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int read_full(int fd, char *b, int n, int spin)
{
	while (n > 0) {
		ssize_t m = read(fd, b, n);
		if (m < 0 && spin && errno == EAGAIN)
			continue;
		if (m <= 0)
			return -1;
		b += m;
		n -= m;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int spin = argc == 3 && strcmp(argv[1], "-spin") == 0;
	if (argc != 2 + spin || atoi(argv[1 + spin]) < 1) {
		fprintf(stderr, "usage: pingpong [-spin] N\n");
		return 2;
	}
	int n = atoi(argv[1 + spin]), one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof sa;
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(ls, (struct sockaddr *)&sa, len) < 0 || listen(ls, 1) < 0 || getsockname(ls, (struct sockaddr *)&sa, &len) < 0) {
		perror("pingpong: listen");
		return 1;
	}
	pid_t child = fork();
	if (child == 0) {
		int c = accept(ls, NULL, NULL);
		char b[11];
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (spin)
			fcntl(c, F_SETFL, O_NONBLOCK);
		while (read_full(c, b, sizeof b, spin) == 0)
			if (write(c, b, sizeof b) != sizeof b)
				break;
		_exit(0);
	}
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&sa, len) < 0) {
		perror("pingpong: connect");
		return 1;
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	double *d = malloc(n * sizeof *d);
	char b[11] = { 0 };
	for (int i = 0; i < n; i++) {
		double t = now_us();
		if (write(s, b, sizeof b) != sizeof b || read_full(s, b, sizeof b, 0) < 0) {
			perror("pingpong");
			return 1;
		}
		d[i] = now_us() - t;
	}
	close(s);
	waitpid(child, NULL, 0);
	qsort(d, n, sizeof *d, cmp);
	printf("%s round trip: median %.1f µs, p90 %.1f µs (%d round trips)\n",
	       spin ? "to a busy-polling echo" : "to a sleeping echo   ", d[n / 2], d[n * 9 / 10], n);
	return 0;
}
