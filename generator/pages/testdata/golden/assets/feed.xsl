<?xml version="1.0" encoding="UTF-8"?>
<!-- Shows the change feed to a person who opens it in a browser. Feed
     readers and agents never apply it: they read the XML as it is. -->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:atom="http://www.w3.org/2005/Atom"
    xmlns:af="https://agent-feed.dev/ns/v0"
    exclude-result-prefixes="atom af">
  <xsl:output method="html" encoding="UTF-8" indent="yes"/>
  <xsl:template match="/atom:feed">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <!-- No icon: one at a fixed path would not be the site's under a base path. -->
        <link rel="icon" href="data:,"/>
        <title><xsl:value-of select="atom:title"/></title>
        <style>
          body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
          .about { background: #f3f4f6; padding: .75rem 1rem; border-radius: .5rem; }
          code { overflow-wrap: anywhere; }
          ol { list-style: none; padding: 0; }
          li { border-top: 1px solid #ddd; padding: .75rem 0; }
          .meta { color: #666; font-size: .875rem; }
        </style>
      </head>
      <body>
        <h1><xsl:value-of select="atom:title"/></h1>
        <p class="about">
          This is a signed change feed (agent-feed, Atom). Agents and feed readers subscribe to
          <code><xsl:value-of select="atom:link[@rel='self']/@href"/></code>;
          <xsl:if test="atom:link[@rel='alternate']">
            people read the <a href="{atom:link[@rel='alternate']/@href}">changelog</a>.
          </xsl:if>
          Status: <xsl:value-of select="af:feed-status"/>.
        </p>
        <ol>
          <xsl:for-each select="atom:entry">
            <li>
              <strong>
                <xsl:choose>
                  <xsl:when test="atom:link[@rel='alternate']">
                    <a href="{atom:link[@rel='alternate']/@href}"><xsl:value-of select="atom:title"/></a>
                  </xsl:when>
                  <xsl:otherwise><xsl:value-of select="atom:title"/></xsl:otherwise>
                </xsl:choose>
              </strong>
              <div class="meta">
                <xsl:value-of select="af:type"/> · <time><xsl:value-of select="atom:updated"/></time>
              </div>
              <xsl:if test="atom:summary and atom:summary != atom:title">
                <p><xsl:value-of select="atom:summary"/></p>
              </xsl:if>
            </li>
          </xsl:for-each>
        </ol>
        <xsl:if test="atom:link[@rel='prev-archive']">
          <p><a href="{atom:link[@rel='prev-archive']/@href}">Older entries</a></p>
        </xsl:if>
      </body>
    </html>
  </xsl:template>
</xsl:stylesheet>
