def render_month(a, year, month):
    a(title(year, month))
    a("\n")
    a(week_header())
    a("\n")
    for week in weeks(year, month):
        a(render_week(week))
    return a
