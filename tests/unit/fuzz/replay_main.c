// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-alone driver for the fuzz harnesses, built with gcc by plain `make`:
 * feeds every file of the given directories (or the given files) to
 * LLVMFuzzerTestOneInput once, so the seed corpus and any crash reproducer
 * checked in are replayed on every unit test run, without libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned int replayed;

static int replay_file(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* a private heap copy of the exact size, so ASan sees overreads */
	{
		uint8_t *copy = malloc(n ? n : 1);

		if (!copy)
			return -1;
		memcpy(copy, buf, n);
		LLVMFuzzerTestOneInput(copy, n);
		free(copy);
	}
	replayed++;
	return 0;
}

static int replay(const char *path)
{
	struct dirent **names;
	struct stat st;
	int i, n, err = 0;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		char full[4096];

		if (names[i]->d_name[0] != '.') {
			snprintf(full, sizeof(full), "%s/%s", path, names[i]->d_name);
			if (replay_file(full))
				err = -1;
		}
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	const char *name;
	int i, err = 0;

	for (i = 1; i < argc; i++)
		if (replay(argv[i]))
			err = 1;
	if (!replayed) {
		fprintf(stderr, "%s: nothing replayed\n", argv[0]);
		return 1;
	}
	name = strstr(argv[0], "replay_");
	printf("replay %s: %u inputs ok\n", name ? name + 7 : argv[0], replayed);
	return err;
}
