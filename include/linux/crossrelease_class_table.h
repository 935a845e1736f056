/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lockdep classes named after what owns the crosslocks: a helper and its
 * tag, a kind of dma-fence, a file system's address_space_operations.
 * Each user keeps a static array of entries, each beginning with a
 * struct crosslock_class_slot, filled once per owner and read without
 * locks; this is the table around it.
 */
#ifndef __LINUX_CROSSRELEASE_CLASS_TABLE_H
#define __LINUX_CROSSRELEASE_CLASS_TABLE_H

#include <asm/barrier.h>
#include <linux/build_bug.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

/* The first member of every entry: the owner that finds it */
struct crosslock_class_slot {
	const void	*owner;		/* NULL while the slot is free */
	const void	*owner2;	/* a second key, or NULL */
};

/*
 * The owner of a slot whose owner went away (a module unloaded): no look-up
 * matches it and none stops at it, and it is not taken again.
 */
#define CROSSLOCK_CLASS_GONE	((const void *)~0UL)

struct crosslock_class_table {
	void		*entries;
	size_t		entry_size;
	unsigned int	nr_entries;	/* a power of two */
	void * __percpu	*last;		/* the entry each CPU found last */
	raw_spinlock_t	lock;		/* serialises adding entries */
	bool		listed;		/* in the engine's list of tables */
};

#define CROSSLOCK_CLASS_TABLE_INIT(name, array, last_found)		\
	{								\
		.entries = (array),					\
		.entry_size = sizeof((array)[0]),			\
		.nr_entries = ARRAY_SIZE(array) +			\
			BUILD_BUG_ON_ZERO(ARRAY_SIZE(array) &		\
					  (ARRAY_SIZE(array) - 1)),	\
		.last = &(last_found),					\
		.lock = __RAW_SPIN_LOCK_UNLOCKED((name).lock),		\
	}

/**
 * DEFINE_CROSSLOCK_CLASS_TABLE - define a static class table
 * @name:  the table
 * @array: its entries, a static array whose size is a power of two
 *
 * Also defines the per-CPU pointer to the entry each CPU found last, which
 * must be at file scope.
 */
#define DEFINE_CROSSLOCK_CLASS_TABLE(name, array)			\
	static DEFINE_PER_CPU(void *, name##_last);			\
	static struct crosslock_class_table name =			\
		CROSSLOCK_CLASS_TABLE_INIT(name, array, name##_last)

/* Called with the table locked, to fill @owner's new entry before it is found */
typedef void (*crosslock_class_init_t)(void *entry, const void *owner,
				       const void *arg);

static inline struct crosslock_class_slot *
crosslock_class_slot(struct crosslock_class_table *t, const void *owner,
		     const void *owner2, unsigned int probe)
{
	unsigned long key = (unsigned long)owner ^ (unsigned long)owner2;
	unsigned int i = (hash_long(key, 32) + probe) & (t->nr_entries - 1);

	return t->entries + i * t->entry_size;
}

/*
 * The hashed look-up; slots are never freed (one whose owner went away is
 * CROSSLOCK_CLASS_GONE), so it stops at the first free one.
 */
static inline struct crosslock_class_slot *
crosslock_class_probe(struct crosslock_class_table *t, const void *owner,
		      const void *owner2)
{
	unsigned int i;

	for (i = 0; i < t->nr_entries; i++) {
		struct crosslock_class_slot *s;
		const void *o;

		s = crosslock_class_slot(t, owner, owner2, i);
		/* pairs with the release in crosslock_class_add() */
		o = smp_load_acquire(&s->owner);
		if (!o)
			break;
		if (o == owner && s->owner2 == owner2)
			return s;
	}
	return NULL;
}

/**
 * crosslock_class_find - the entry of an owner in a class table
 * @t:      the table
 * @owner:  the owner, never NULL
 * @owner2: a second key, or NULL
 *
 * Inline and lockless: the folio-lock and buffer-lock hooks look their
 * class up on every acquisition, and most look-ups on a CPU are for the
 * owner the previous one found.  That entry is tried before the hash.  It
 * is kept as one pointer, so that an interrupt's look-up in between cannot
 * pair one entry's owner with another's class; a slot's owners change
 * only to CROSSLOCK_CLASS_GONE (a module went away), which no look-up
 * matches.
 *
 * Return: the entry, or NULL if the owner has none yet.
 */
static inline void *crosslock_class_find(struct crosslock_class_table *t,
					 const void *owner, const void *owner2)
{
	struct crosslock_class_slot *s = this_cpu_read(*t->last);

	if (likely(s && s->owner == owner && s->owner2 == owner2))
		return s;
	s = crosslock_class_probe(t, owner, owner2);
	if (likely(s))
		this_cpu_write(*t->last, s);
	return s;
}

#ifdef CONFIG_LOCKDEP_CROSSRELEASE
void *crosslock_class_add(struct crosslock_class_table *t,
			  const void *owner, const void *owner2,
			  crosslock_class_init_t init, const void *arg);
#else
static inline void *crosslock_class_add(struct crosslock_class_table *t,
					const void *owner, const void *owner2,
					crosslock_class_init_t init,
					const void *arg)
{
	return NULL;
}
#endif

#endif /* __LINUX_CROSSRELEASE_CLASS_TABLE_H */
