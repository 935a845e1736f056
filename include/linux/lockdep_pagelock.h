/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folio locks (PG_locked) as lockdep crosslocks: the hooks that the folio
 * lock primitives call.  See mm/lockdep_pagelock.c.
 */
#ifndef __LINUX_LOCKDEP_PAGELOCK_H
#define __LINUX_LOCKDEP_PAGELOCK_H

#include <linux/types.h>

struct folio;
struct page;

#ifdef CONFIG_LOCKDEP_PAGELOCK

struct page_ext_operations;
extern struct page_ext_operations lockdep_pagelock_ops;

void lockdep_folio_wait(struct folio *folio, unsigned long ip);
void lockdep_folio_acquire(struct folio *folio, unsigned long ip);
void lockdep_folio_release(struct folio *folio, bool commit,
			   unsigned long ip);
void lockdep_pagelock_free(struct page *page);
bool lockdep_pagelock_enabled(void);
bool lockdep_folio_owned(struct folio *folio);
const char *lockdep_folio_class_name(struct folio *folio);

#else /* !CONFIG_LOCKDEP_PAGELOCK */

static inline void lockdep_folio_wait(struct folio *folio,
				      unsigned long ip) { }
static inline void lockdep_folio_acquire(struct folio *folio,
					 unsigned long ip) { }
static inline void lockdep_folio_release(struct folio *folio, bool commit,
					 unsigned long ip) { }
static inline void lockdep_pagelock_free(struct page *page) { }
static inline bool lockdep_pagelock_enabled(void) { return false; }
static inline bool lockdep_folio_owned(struct folio *folio) { return false; }
static inline const char *lockdep_folio_class_name(struct folio *folio)
{
	return "";
}

#endif /* CONFIG_LOCKDEP_PAGELOCK */
#endif /* __LINUX_LOCKDEP_PAGELOCK_H */
