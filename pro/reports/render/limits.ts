/**
 * The page formats' own limit. A PDF or an HTML page of more than ten
 * thousand table rows is read by nobody and weighs megabytes in a mailbox;
 * past it they say so and the xlsx file (a spreadsheet is made for filtering)
 * holds every row the run read.
 */
export const TABLE_ROW_CAP = 10_000
