/* Loop devices for workspace images: one device, and so one file system,
 * per image at any time. */
#ifndef MCPFS_WS_LOOP_H
#define MCPFS_WS_LOOP_H

/* A free loop device bound to @imgfd, with autoclear (the device lives as
 * long as what holds it open); its fd, its number in @number, or -errno. */
int loop_attach(int imgfd, int *number);

/* The loop device already bound to the image @imgfd, held open so it stays
 * bound while the caller mounts it: its fd and number, or -ENOENT.
 * @tail ("/<customer>/workspace.img") picks the candidates by the path the
 * kernel shows, whatever root the binder saw; the inode confirms. */
int loop_bound(int imgfd, const char *tail, int *number);

#endif
