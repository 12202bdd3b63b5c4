//! Reading Discuz! X pages: PC HTML and mobile-API JSON into [`crate::model::ThreadPage`]. Pure: bytes in, data out.
