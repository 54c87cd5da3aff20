/*
 * k4j's pod sandbox process (the "pause" container). It holds the pod's namespaces open, does nothing else, reaps
 * the zombies that end up with it as PID 1 of a shared PID namespace, and exits 0 on SIGTERM or SIGINT.
 * Built with `gcc -static` by `k4j images`.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define VERSION "3.10"

static void on_stop_signal(int signal_number) {
    (void) signal_number;
    _exit(0);
}

static void on_child_exit(int signal_number) {
    (void) signal_number;
    int saved_errno = errno;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
        /* keep reaping: one SIGCHLD may stand for several exited children */
    }
    errno = saved_errno;
}

static void install(int signal_number, void (*handler)(int), int flags) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    if (sigaction(signal_number, &action, NULL) != 0) {
        perror("pause: sigaction");
        _exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        printf("pause (k4j) %s\n", VERSION);
        return 0;
    }
    if (getpid() != 1) {
        fprintf(stderr, "pause: warning: not PID 1, orphaned processes will not be reaped here\n");
    }
    /* As PID 1 of a namespace, a signal without a handler is ignored: handle the stop signals explicitly. */
    install(SIGINT, on_stop_signal, 0);
    install(SIGTERM, on_stop_signal, 0);
    install(SIGCHLD, on_child_exit, SA_NOCLDSTOP | SA_RESTART);
    for (;;) {
        pause();
    }
}
