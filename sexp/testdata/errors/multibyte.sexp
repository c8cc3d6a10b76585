(print "héllo wörld 日本" 'naïve 99999999999999999999)
