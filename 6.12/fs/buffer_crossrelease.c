// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer locks (BH_Lock) as lockdep crosslocks.
 *
 * lock_buffer() is taken by a task and most often dropped by the I/O
 * completion, end_buffer_read_sync() or end_buffer_write_sync(), so
 * lockdep's held-lock stack cannot follow it.  A buffer lock is an owned
 * crosslock, as a folio lock is (mm/folio_crossrelease.c): lock_buffer()
 * and wait_on_buffer() wait for it, taking the bit records the owner in
 * the buffer_head, and unlock_buffer() commits what its context acquired
 * since.
 *
 * One class for every buffer would chain the journal's buffers to every
 * file system's metadata, and the metadata of one file system to another's.
 * The class follows who the buffer belongs to:
 *
 *  - "(BH_Lock)<fs>:meta": buffers of the block device of a mounted file
 *    system of type <fs> (its metadata, and its journal if internal);
 *  - "(BH_Lock)<fs>:<a_ops>": buffers of a file's page cache (file data
 *    written through buffer heads), per address_space_operations;
 *  - "(BH_Lock)bdev": buffers of a block device nothing is mounted on;
 *  - "(BH_Lock)buffer": buffers of no page cache.
 *
 * "lockdep_buffer_lock=off" on the command line turns the tracking off; the
 * state in struct buffer_head (16 bytes) stays.
 * See Documentation/locking/crossrelease.rst.
 */
#define pr_fmt(fmt) "lockdep_buffer_lock: " fmt

#include <kunit/visibility.h>
#include <linux/blkdev.h>
#include <linux/buffer_crossrelease.h>
#include <linux/buffer_head.h>
#include <linux/crossrelease.h>
#include <linux/crossrelease_class_table.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/pagemap.h>
#include <linux/string.h>

static bool buffer_lock_wanted __initdata = true;

CROSSLOCK_OFF_PARAM("lockdep_buffer_lock", buffer_lock_wanted);

DEFINE_STATIC_KEY_FALSE(crosslock_buffer_key);
EXPORT_SYMBOL_GPL(crosslock_buffer_key);

static struct lock_class_key buffer_key, bdev_key;
static struct lockdep_map buffer_map =
	CROSSLOCK_MAP_INIT("(BH_Lock)buffer", &buffer_key);
static struct lockdep_map bdev_map =
	CROSSLOCK_MAP_INIT("(BH_Lock)bdev", &bdev_key);

/*
 * Classes per owner: a file system type (its metadata) or an a_ops (file
 * data).  A small table, filled once per owner, read locklessly.
 */
#define BH_CLASSES		64
#define BH_NAME_LEN		64

struct bh_class {
	struct crosslock_class_slot	slot;	/* the owner */
	struct lockdep_map		map;
	struct lock_class_key		key;
	char				name[BH_NAME_LEN];
};

static struct bh_class bh_classes[BH_CLASSES];
DEFINE_CROSSLOCK_CLASS_TABLE(bh_table, bh_classes);

struct bh_owner {
	const char				*fs_name;
	const struct address_space_operations	*aops;	/* NULL: metadata */
};

static void bh_class_init(void *entry, const void *owner, const void *arg)
{
	const struct bh_owner *o = arg;
	struct bh_class *c = entry;

	if (o->aops)
		snprintf(c->name, BH_NAME_LEN, "(BH_Lock)%s:%ps", o->fs_name,
			 o->aops);
	else
		snprintf(c->name, BH_NAME_LEN, "(BH_Lock)%s:meta", o->fs_name);
	crosslock_init_class(&c->map, c->name, &c->key);
}

/* @sb's name is read only for a new entry: the common look-up is a hit */
static struct lockdep_map *bh_owner_class(const void *owner,
					  const struct super_block *sb,
					  const struct address_space_operations *aops)
{
	struct bh_owner o = { .aops = aops };
	struct bh_class *c = crosslock_class_find(&bh_table, owner, NULL);

	if (likely(c))
		return &c->map;
	o.fs_name = sb->s_type->name;
	c = crosslock_class_add(&bh_table, owner, NULL, bh_class_init, &o);
	if (c)
		return &c->map;
	pr_warn_once("more than %d buffer-lock classes: %s's buffers share \"(BH_Lock)buffer\"\n",
		     BH_CLASSES, o.fs_name);
	return NULL;
}

/*
 * The mapping of the page under @bh, if it is a page-cache page: jbd2's
 * frozen copies of a buffer live in slab memory (blocks smaller than a
 * page) or in a page of nobody's, whose ->mapping is something else or
 * nothing.
 */
static struct address_space *buffer_mapping(struct buffer_head *bh)
{
	struct folio *folio = READ_ONCE(bh->b_folio);
	struct address_space *mapping;

	if (!folio)
		return NULL;
	if (folio_test_slab(folio))
		return NULL;
	mapping = READ_ONCE(folio->mapping);
	if ((unsigned long)mapping & PAGE_MAPPING_FLAGS)
		return NULL;
	return mapping;
}

/*
 * The super block of the file system mounted on @bdev, if any: a file
 * system claims the device its super block lives on with fs_holder_ops
 * and the super block as holder.  Another device it claims so (ext4's
 * external journal) does not count.
 */
static struct super_block *bdev_mounted_sb(struct block_device *bdev)
{
	struct super_block *sb;

	if (READ_ONCE(bdev->bd_holder_ops) != &fs_holder_ops)
		return NULL;
	sb = READ_ONCE(bdev->bd_holder);
	if (!sb || READ_ONCE(sb->s_bdev) != bdev)
		return NULL;
	return sb;
}

/*
 * The class of @bh's lock.  The super block and inode behind it are freed
 * after an RCU grace period: a preempt-disabled section keeps them.  A
 * buffer of no page cache (jbd2's frozen copies) goes with the file
 * system of its block device, if one is mounted.
 */
static struct lockdep_map *buffer_lock_class(struct buffer_head *bh)
{
	struct lockdep_map *map = NULL;
	struct address_space *mapping;
	struct block_device *bdev;
	struct super_block *sb;
	struct inode *host;

	preempt_disable_notrace();
	mapping = buffer_mapping(bh);
	host = mapping ? READ_ONCE(mapping->host) : NULL;
	if (host && !sb_is_blkdev_sb(host->i_sb)) {
		map = bh_owner_class(READ_ONCE(mapping->a_ops), host->i_sb,
				     READ_ONCE(mapping->a_ops));
	} else {
		bdev = READ_ONCE(bh->b_bdev);
		sb = bdev ? bdev_mounted_sb(bdev) : NULL;
		if (sb)
			map = bh_owner_class(sb->s_type, sb, NULL);
		else if (host)
			map = &bdev_map;
	}
	preempt_enable_notrace();
	return map ?: &buffer_map;
}

/*
 * The class a buffer was locked in, kept next to its owner: the unlock
 * commits in it, without looking it up again (and in the class its waiters
 * saw, should the buffer have changed hands meanwhile).
 */
#define BH_CLASS_NONE		0	/* buffer_map */
#define BH_CLASS_BDEV		1	/* bdev_map */
#define BH_CLASS_TABLE		2	/* + the index in bh_classes[] */
static_assert(BH_CLASS_TABLE + BH_CLASSES <= U8_MAX);	/* ->class_id */

static u8 bh_class_id(struct lockdep_map *map)
{
	unsigned long off = (void *)map - (void *)bh_classes;

	if (map == &bdev_map)
		return BH_CLASS_BDEV;
	if (off < sizeof(bh_classes))
		return BH_CLASS_TABLE + off / sizeof(struct bh_class);
	return BH_CLASS_NONE;
}

static struct lockdep_map *bh_class_of_id(u8 id)
{
	if (id == BH_CLASS_BDEV)
		return &bdev_map;
	if (id >= BH_CLASS_TABLE)
		return &bh_classes[id - BH_CLASS_TABLE].map;
	return &buffer_map;
}

/**
 * crosslock_buffer_class_name - the name of @bh's lock class, for tests
 * @bh: the buffer head
 *
 * Return: the class name, e.g. "(BH_Lock)ext4:meta".
 */
const char *crosslock_buffer_class_name(struct buffer_head *bh)
{
	return buffer_lock_class(bh)->name;
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_buffer_class_name);

/**
 * crosslock_buffer_owned - is @bh recorded as locked?
 * @bh: the buffer head
 *
 * For tests.
 *
 * Return: true between the acquisition and the release of the buffer lock
 * as far as lockdep knows.
 */
bool crosslock_buffer_owned(struct buffer_head *bh)
{
	return crosslock_buffer_enabled() && READ_ONCE(bh->b_lock_owner.gen);
}
EXPORT_SYMBOL_IF_KUNIT(crosslock_buffer_owned);

/* The slow paths of the hooks in <linux/buffer_crossrelease.h> */

void __crosslock_buffer_wait(struct buffer_head *bh, unsigned long ip)
{
	/* the class is looked up only for a wait anything depends on */
	if (crosslock_owner_wait_needed(current->lockdep_depth))
		crosslock_owner_wait(buffer_lock_class(bh), ip);
}
EXPORT_SYMBOL_GPL(__crosslock_buffer_wait);

/*
 * The state lives in the buffer_head itself, written after the bit is
 * taken and cleared before it is dropped: the bit orders its writers.
 */
static void buffer_put_owner(struct buffer_head *bh,
			     const struct crosslock_owner *owner)
{
	crosslock_owner_replaced(&bh->b_lock_owner);
	WRITE_ONCE(bh->b_lock_owner.ip, owner->ip);
	bh->b_lock_owner.pid = owner->pid;
	bh->b_lock_owner.class_id = owner->class_id;
	WRITE_ONCE(bh->b_lock_owner.gen, owner->gen);
}

/* @waited: the wait and the acquisition of a lock_buffer() that did not sleep */
static void buffer_acquire(struct buffer_head *bh, unsigned long ip,
			   bool waited)
{
	struct lockdep_map *map = buffer_lock_class(bh);
	struct crosslock_owner owner = { .class_id = bh_class_id(map) };

	if (waited)
		crosslock_owner_lock(map, &owner, ip);
	else
		crosslock_owner_acquire(map, &owner, ip);
	buffer_put_owner(bh, &owner);
}

void __crosslock_buffer_acquire(struct buffer_head *bh, unsigned long ip)
{
	buffer_acquire(bh, ip, false);
}
EXPORT_SYMBOL_GPL(__crosslock_buffer_acquire);

void __crosslock_buffer_lock(struct buffer_head *bh, unsigned long ip)
{
	buffer_acquire(bh, ip, true);
}
EXPORT_SYMBOL_GPL(__crosslock_buffer_lock);

/*
 * A bit set behind lockdep's back (set_buffer_locked(), or before the
 * tracking started) has no owner: its unlock is counted, not warned about.
 */
void __crosslock_buffer_release(struct buffer_head *bh)
{
	struct crosslock_owner owner = {
		.ip		= READ_ONCE(bh->b_lock_owner.ip),
		.pid		= bh->b_lock_owner.pid,
		.class_id	= bh->b_lock_owner.class_id,
		.gen		= READ_ONCE(bh->b_lock_owner.gen),
	};

	WRITE_ONCE(bh->b_lock_owner.gen, 0);
	if (!crosslock_owner_try_release(&owner))
		crosslock_owner_release(bh_class_of_id(owner.class_id), &owner,
					true);
}
EXPORT_SYMBOL_GPL(__crosslock_buffer_release);

static int __init lockdep_buffer_lock_init(void)
{
	if (!buffer_lock_wanted || !crosslock_enabled())
		return 0;
	static_branch_enable(&crosslock_buffer_key);
	pr_info("tracking buffer locks\n");
	return 0;
}
early_initcall(lockdep_buffer_lock_init);
