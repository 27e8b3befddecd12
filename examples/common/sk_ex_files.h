/**
 * \file sk_ex_files.h
 * \brief Files and folders as both examples write them: folders with their parents, and every output
 * file through a temporary name, so that no reader ever sees half a file.
 *
 * **The temporary-file protocol.** A file is written to PATH ".tmp" in the same folder, flushed to disk
 * (fsync, unless the caller asks for the unsynced commit) and renamed to PATH, so an interrupted process
 * leaves either the old file or the complete new one under PATH, never a half file; on failure the
 * temporary file is removed. Two writers of one PATH at a time are not supported.
 *
 * Errors: functions returning int give 0 on success and non-zero on failure with `err` filled (when not
 * NULL) by one line naming the path. Threading: no shared state; calls on different paths may run at once.
 */
#ifndef SK_EX_FILES_H
#define SK_EX_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "sk_ex_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Writes `dir/name` into `buf`.
 * \param buf receives the path.
 * \param cap its size in bytes.
 * \param dir the folder.
 * \param name the file's name.
 * \param err the path is too long.
 * \return 0 on success.
 */
int sk_ex_path(char *buf, size_t cap, const char *dir, const char *name, sk_ex_error *err);

/**
 * \brief Creates folder `dir` and its missing parents (`mkdir -p`).
 * \param dir the folder, shorter than 4096 bytes.
 * \param err a part cannot be created or exists and is not a folder.
 * \return 0 on success, also when every part already exists.
 */
int sk_ex_mkdir_p(const char *dir, sk_ex_error *err);

/**
 * \brief Opens PATH ".tmp" for binary writing (the protocol's first step).
 * \param path the file that sk_ex_temp_commit() will create.
 * \param err the path is NULL or empty, or the temporary file cannot be opened.
 * \return the stream, or NULL on failure.
 */
FILE *sk_ex_temp_create(const char *path, sk_ex_error *err);

/**
 * \brief Flushes, fsyncs, closes and renames the temporary file to PATH; on any failure removes it.
 * \param f the stream from sk_ex_temp_create(path, ...), or NULL (then it fails).
 * \param path the same path.
 * \param err what failed.
 * \return 0 on success.
 */
int sk_ex_temp_commit(FILE *f, const char *path, sk_ex_error *err);

/**
 * \brief sk_ex_temp_commit() without the fsync: a killed process still leaves no half file, a power
 * cut may (for small files that are rewritten often, such as a metrics log).
 * \param f the stream from sk_ex_temp_create(path, ...), or NULL (then it fails).
 * \param path the same path.
 * \param err what failed.
 * \return 0 on success.
 */
int sk_ex_temp_commit_unsynced(FILE *f, const char *path, sk_ex_error *err);

/**
 * \brief Closes the stream (when not NULL) and removes PATH ".tmp" (when path is not NULL).
 * \param f the stream, or NULL.
 * \param path the path given to sk_ex_temp_create(), or NULL.
 */
void sk_ex_temp_abort(FILE *f, const char *path);

/**
 * \brief Whether PATH can be written through the protocol: it is not there as something other than a
 * regular file, and its temporary file can be created (it is removed again). For checking every output
 * path before long work starts.
 * \param path the file.
 * \param err why it cannot.
 * \return 0 when it can.
 */
int sk_ex_check_writable(const char *path, sk_ex_error *err);

/**
 * \brief Whether two paths name the same existing file (the same device and inode: links and other
 * spellings of one path count). For refusing an output path that is one of the command's inputs, which
 * writing it would destroy.
 * \param a a path (NULL: no file).
 * \param b another (NULL: no file).
 * \return 1 when both exist and are one file, else 0.
 */
int sk_ex_same_file(const char *a, const char *b);

/**
 * \brief Readies `dir/name` for each of `names` for a command's new outputs, never destroying what the
 * user did not ask to replace: a file that is `input` (the command's input, by sk_ex_same_file()) is
 * refused whatever `overwrite` says; a file that exists is refused unless `overwrite`, and then removed
 * now, so that a command cut short leaves none of an earlier run's outputs beside its own. Call it after
 * sk_ex_check_output_dir() and before the work.
 * \param dir the folder.
 * \param names the files' names, ended by NULL.
 * \param input the command's input file, or NULL.
 * \param overwrite non-zero: files already there are replaced (the user's `--overwrite`).
 * \param err the first file refused (`DIR/NAME exists (--overwrite replaces it)` or `... is the input
 *        file ...`), or one that could not be removed.
 * \return 0 when every output may be written.
 */
int sk_ex_prepare_outputs(const char *dir, const char *const *names, const char *input, int overwrite,
                          sk_ex_error *err);

/**
 * \brief Whether folder `dir` can take the files `names`: creates it with its parents (sk_ex_mkdir_p()),
 * then checks each `dir/name` with sk_ex_check_writable(). For refusing an output folder before long work
 * starts (a bad output path is the user's input: exit 2 in both examples).
 * \param dir the folder.
 * \param names the files' names, ended by NULL.
 * \param err the folder or the first file that cannot be written, and why.
 * \return 0 when every file can be written.
 */
int sk_ex_check_output_dir(const char *dir, const char *const *names, sk_ex_error *err);

/**
 * \brief Writes PATH through the protocol in one call: `body` writes the content to the stream.
 * \param path the file.
 * \param body writes the content; returns 0 on success.
 * \param ctx passed to body.
 * \param err the file and what failed.
 * \return 0 on success.
 */
int sk_ex_write_file(const char *path, int (*body)(FILE *, const void *), const void *ctx, sk_ex_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SK_EX_FILES_H */
