/*
 * flush-floor: what flushing a tree file by file costs the kernel, with nothing of assetpack around it.
 *
 * Copies the shape of TREE (its folders, and its files smaller than 64 KiB with their sizes; the bytes are
 * not read) into OUT, then flushes OUT one entry at a time the way a durable install must when it may not
 * wait for other programs' writes: the write-back of every file started at once (sync_file_range), then
 * fsync(2) of every file and every folder on THREADS threads. Prints the wall and CPU time of both phases
 * and the CPU time an entry. Optionally writes MIB MiB to OUT.foreign first and leaves it unsynced (another
 * program's writes waiting in the page cache, as in the benchmark's expand-app-foreign-dirty scenario).
 *
 * This is the floor under assetpack's per-file flush (Sources/AssetPack/Install/TreeFlush.swift): no
 * arrangement of the same fsync calls does less work than this program does.
 *
 *   cc -O2 -pthread Tools/Benchmarks/flush-floor.c -o /tmp/flush-floor
 *   sync; /tmp/flush-floor /tmp/assetpack-bench/corpus/app /tmp/floor-out-1 16 1024
 *
 * OUT must not exist. Linux only (sync_file_range).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { small_file = 64 << 10 };

static const char *tree_root, *out_root;
static int *descriptors;
static size_t entries, capacity, next_entry;
static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;
static char block[small_file];

static double wall_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void fail(const char *what, const char *path) {
    fprintf(stderr, "flush-floor: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void keep(int descriptor) {
    if (entries == capacity) {
        capacity = capacity ? capacity * 2 : 4096;
        descriptors = realloc(descriptors, capacity * sizeof *descriptors);
        if (!descriptors) fail("out of memory for", "descriptors");
    }
    descriptors[entries++] = descriptor;
}

/* nftw visits a folder before its contents, so each file's folder exists when the file is made. */
static int copy_shape(const char *path, const struct stat *status, int type, struct FTW *where) {
    (void)where;
    char target[4096];
    snprintf(target, sizeof target, "%s%s", out_root, path + strlen(tree_root));
    if (type == FTW_D) {
        if (mkdir(target, 0755) != 0) fail("cannot make the folder", target);
        int folder = open(target, O_RDONLY | O_DIRECTORY);
        if (folder < 0) fail("cannot open the folder", target);
        keep(folder);
    } else if (type == FTW_F && status->st_size < small_file) {
        int file = open(target, O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (file < 0 || write(file, block, status->st_size) != status->st_size) fail("cannot write", target);
        keep(file);
    }
    return 0;
}

static void *flush_worker(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&next_lock);
        size_t index = next_entry++;
        pthread_mutex_unlock(&next_lock);
        if (index >= entries) return NULL;
        if (fsync(descriptors[index]) != 0) fail("fsync failed for an entry of", out_root);
    }
}

static void write_foreign(const char *out, long mib) {
    char path[4096];
    snprintf(path, sizeof path, "%s.foreign", out);
    int file = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (file < 0) fail("cannot write", path);
    static char mebibyte[1 << 20];
    for (size_t i = 0; i < sizeof mebibyte; i++) mebibyte[i] = (char)(i * 2654435761u >> 24);
    for (long i = 0; i < mib; i++) {
        if (write(file, mebibyte, sizeof mebibyte) != sizeof mebibyte) fail("cannot write", path);
    }
    close(file);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: flush-floor TREE OUT THREADS [FOREIGN_MIB]\n");
        return 2;
    }
    tree_root = argv[1];
    out_root = argv[2];
    int threads = atoi(argv[3]);
    if (threads < 1 || threads > 256) {
        fprintf(stderr, "flush-floor: THREADS must be 1 to 256, not %s\n", argv[3]);
        return 2;
    }
    memset(block, 'x', sizeof block);
    if (argc > 4) write_foreign(out_root, atol(argv[4]));

    double wall0 = wall_seconds(), cpu0 = cpu_seconds();
    if (nftw(tree_root, copy_shape, 64, FTW_PHYS) != 0) fail("cannot walk", tree_root);
    double wall1 = wall_seconds(), cpu1 = cpu_seconds();
    for (size_t i = 0; i < entries; i++) sync_file_range(descriptors[i], 0, 0, SYNC_FILE_RANGE_WRITE);
    pthread_t workers[256];
    for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, flush_worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    double wall2 = wall_seconds(), cpu2 = cpu_seconds();

    printf("%zu entries: written in %.3f s (CPU %.3f s), flushed on %d threads in %.3f s (CPU %.3f s, %.1f us an entry)\n",
           entries, wall1 - wall0, cpu1 - cpu0, threads, wall2 - wall1, cpu2 - cpu1, (cpu2 - cpu1) / entries * 1e6);
    return 0;
}
