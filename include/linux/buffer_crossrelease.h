/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffer locks (BH_Lock) as lockdep crosslocks: the hooks that the buffer
 * lock primitives call, each an inline test of a static key around an
 * out-of-line slow path.  See fs/buffer_crossrelease.c.
 */
#ifndef __LINUX_BUFFER_CROSSRELEASE_H
#define __LINUX_BUFFER_CROSSRELEASE_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct buffer_head;

#ifdef CONFIG_LOCKDEP_BUFFER_LOCK

DECLARE_STATIC_KEY_FALSE(crosslock_buffer_key);

void __crosslock_buffer_wait(struct buffer_head *bh, unsigned long ip);
void __crosslock_buffer_acquire(struct buffer_head *bh, unsigned long ip);
void __crosslock_buffer_lock(struct buffer_head *bh, unsigned long ip);
void __crosslock_buffer_release(struct buffer_head *bh);
bool crosslock_buffer_owned(struct buffer_head *bh);
const char *crosslock_buffer_class_name(struct buffer_head *bh);

/**
 * crosslock_buffer_enabled - are buffer locks tracked in this boot?
 *
 * Return: false during early boot, or when booted with
 * "lockdep_buffer_lock=off" or "crossrelease=off".
 */
static __always_inline bool crosslock_buffer_enabled(void)
{
	return static_branch_likely(&crosslock_buffer_key);
}

/*
 * crosslock_buffer_wait - a task may wait for @bh to be unlocked: called
 * by lock_buffer() once its first try failed (its fast path records the
 * wait and the acquisition in one call) and by wait_on_buffer(), whether
 * or not they end up sleeping
 */
static __always_inline void crosslock_buffer_wait(struct buffer_head *bh,
						  unsigned long ip)
{
	if (crosslock_buffer_enabled())
		__crosslock_buffer_wait(bh, ip);
}

/* crosslock_buffer_acquire - @bh's lock bit was just taken */
static __always_inline void crosslock_buffer_acquire(struct buffer_head *bh,
						     unsigned long ip)
{
	if (crosslock_buffer_enabled())
		__crosslock_buffer_acquire(bh, ip);
}

/*
 * crosslock_buffer_lock - lock_buffer() took @bh's lock bit at once:
 * crosslock_buffer_wait() and crosslock_buffer_acquire() in one call
 */
static __always_inline void crosslock_buffer_lock(struct buffer_head *bh,
						  unsigned long ip)
{
	if (crosslock_buffer_enabled())
		__crosslock_buffer_lock(bh, ip);
}

/* crosslock_buffer_release - @bh's lock bit is about to be dropped */
static __always_inline void crosslock_buffer_release(struct buffer_head *bh)
{
	if (crosslock_buffer_enabled())
		__crosslock_buffer_release(bh);
}

#else /* !CONFIG_LOCKDEP_BUFFER_LOCK */

static inline bool crosslock_buffer_enabled(void) { return false; }
static inline void crosslock_buffer_wait(struct buffer_head *bh,
					 unsigned long ip) { }
static inline void crosslock_buffer_acquire(struct buffer_head *bh,
					    unsigned long ip) { }
static inline void crosslock_buffer_lock(struct buffer_head *bh,
					 unsigned long ip) { }
static inline void crosslock_buffer_release(struct buffer_head *bh) { }
static inline bool crosslock_buffer_owned(struct buffer_head *bh)
{
	return false;
}

static inline const char *crosslock_buffer_class_name(struct buffer_head *bh)
{
	return "";
}

#endif /* CONFIG_LOCKDEP_BUFFER_LOCK */
#endif /* __LINUX_BUFFER_CROSSRELEASE_H */
