package dataset

// Collection is who owns a Google ClusterData2019 collection (a job or an
// alloc set), from its collection_events: what joins the collection's
// instance usage to a user.
type Collection struct {
	Collection  string // collection_id, decimal
	User        string // obfuscated user name
	LogicalName string // collection_logical_name (obfuscated): the same job across runs; "" when absent
	Source      string // input format the row came from
}

// CollectionsTable holds one row per collection (format
// google2019-collection-events).
var CollectionsTable = newTable("collections",
	stringCol("collection", false, func(r *Collection) *string { return &r.Collection }),
	stringCol("user", true, func(r *Collection) *string { return &r.User }),
	stringCol("logical_name", true, func(r *Collection) *string { return &r.LogicalName }),
	stringCol("source", true, func(r *Collection) *string { return &r.Source }),
)

// Collections is the transaction's writer for the collections table.
func (tx *Tx) Collections() *Writer[Collection] { return WriterFor(tx, CollectionsTable) }
