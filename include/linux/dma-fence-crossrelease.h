/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dma-fences as lockdep crosslocks: hooks for drivers/dma-buf/dma-fence.c
 * and the opportunistic-signal annotation for drivers.  See
 * drivers/dma-buf/dma-fence-crossrelease.c.
 */
#ifndef __LINUX_DMA_FENCE_CROSSRELEASE_H
#define __LINUX_DMA_FENCE_CROSSRELEASE_H

#include <linux/crossrelease.h>

struct dma_fence;

#ifdef CONFIG_LOCKDEP_DMA_FENCE

void crosslock_fence_init(struct dma_fence *fence);
void crosslock_fence_acquire(struct dma_fence *fence, signed long timeout,
			     unsigned long ip);
void crosslock_fence_release(struct dma_fence *fence, signed long timeout,
			     unsigned long ip);
void crosslock_fence_commit(struct dma_fence *fence);
void crosslock_fence_section_begin(void);
void crosslock_fence_section_end(void);

#else /* !CONFIG_LOCKDEP_DMA_FENCE */

static inline void crosslock_fence_init(struct dma_fence *fence) { }
static inline void crosslock_fence_acquire(struct dma_fence *fence,
					   signed long timeout,
					   unsigned long ip) { }
static inline void crosslock_fence_release(struct dma_fence *fence,
					   signed long timeout,
					   unsigned long ip) { }
static inline void crosslock_fence_commit(struct dma_fence *fence) { }
static inline void crosslock_fence_section_begin(void) { }
static inline void crosslock_fence_section_end(void) { }

#endif /* CONFIG_LOCKDEP_DMA_FENCE */

/*
 * The signalling annotation (dma_fence_lockdep_map) is not a lock the
 * signal waits for: keep it out of what a signal commits.
 */
static inline void crosslock_fence_annotation_begin(void)
{
	if (IS_ENABLED(CONFIG_LOCKDEP_DMA_FENCE))
		crosslock_hide_begin();
}

static inline void crosslock_fence_annotation_end(void)
{
	if (IS_ENABLED(CONFIG_LOCKDEP_DMA_FENCE))
		crosslock_hide_end();
}

/**
 * crosslock_fence_opportunistic_begin - the signals that follow are opportunistic
 *
 * Code that signals fences only as a shortcut (a fast path noticing that
 * the hardware is done, a shrinker cleaning up), while an interrupt
 * handler or a worker signals them for sure, is not on the path to the
 * fence's completion: with crossrelease, its signals commit nothing until
 * crosslock_fence_opportunistic_end().  Sections nest.
 */
static inline void crosslock_fence_opportunistic_begin(void)
{
	if (IS_ENABLED(CONFIG_LOCKDEP_DMA_FENCE))
		crosslock_opportunistic_begin();
}

/**
 * crosslock_fence_opportunistic_end - end of crosslock_fence_opportunistic_begin()
 */
static inline void crosslock_fence_opportunistic_end(void)
{
	if (IS_ENABLED(CONFIG_LOCKDEP_DMA_FENCE))
		crosslock_opportunistic_end();
}

#endif /* __LINUX_DMA_FENCE_CROSSRELEASE_H */
