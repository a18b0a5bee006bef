"""The routes: leaves that each read the understood question and the shared resources and return
candidate answers (``Candidate``: the answer type it gives, the answer, the features of its
confidence). One contract for every route: ``route(query, resources) -> list[Candidate]``, empty
when the route does not apply. The chooser (``assistant/chooser.py``) asks them (``registry.py``).

- ``section``: a section by number, by title, or the section printing a named table
- ``parcel``: a parcel by its assessor's number; a street address's zone (declined, with the reason)
- ``definition``: a defined term (quoted, named alone, or defining the quantity asked)
- ``permit``: the permit-table cell for a use and district
- ``standards``: a standards-table row (a measure, or who decides)
- ``district``: what a district is (its printed purpose)
- ``passage``: quoted sentences the search finds
- ``table``: a table asked for by number (the table itself, each table printed under that number)
- ``citation``: the section, table or ordinance a citation request asks for, with its title and date
- ``ranking``: extremes and comparisons over the standards tables

Each is declared once in ``registry.py`` (functions, the names they give, their signals).
"""
